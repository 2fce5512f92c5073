import { Type } from 'typebox';

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable error code; see the README for the list' }),
    instance: Type.String(),
    requestId: Type.String(),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

export const problemRef = Type.Ref('Problem');

/** Response entries for the errors a wallet-authenticated route can answer. */
export const authenticatedErrorResponses = {
  401: problemRef,
  403: problemRef,
  429: problemRef,
  503: problemRef,
};
