import { Type } from 'typebox';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable error code; see the README for the list' }),
    instance: Type.String(),
    requestId: Type.String(),
    retryAfterSeconds: Type.Optional(Type.Integer({ description: '429: seconds until a sign-in is tried again (also Retry-After)' })),
    currentEtag: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "412: the live file's ETag, null when there is none; for a folder or channel restore, the current plan's ETag",
      }),
    ),
    size: Type.Optional(Type.Integer({ description: "416: the file's length in bytes (also Content-Range: bytes */size)" })),
    outcome: Type.Optional(
      Type.Union([Type.Literal('unchanged'), Type.Literal('unknown')], {
        description:
          "503 of a write: 'unchanged' when it was undone (nothing changed), 'unknown' when the database stopped answering while it was recorded (it took effect whole or not at all; the file's ETag tells which once the database is back)",
      }),
    ),
    lookalikes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            spelling: Type.String({
              description: 'The stored name with every character outside printable ASCII as its code point: e\\u0301.txt',
            }),
          },
          { additionalProperties: true },
        ),
        {
          description:
            "NAME_AMBIGUOUS: the stored records a name means, which an older release stored under look-alike spellings (NFC and NFD): for files their folder, filename and, when live, etag, size and updatedAt (If-Match with one's etag chooses it); for channels their id and name",
        },
      ),
    ),
    channelCreatedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'INSTANT_BEFORE_CHANNEL: when the channel was created, the earliest instant a restore may name',
      }),
    ),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

const problemRef = Type.Ref('Problem');

/** What each error status means on this API, as the OpenAPI document tells it. */
const MEANINGS: Record<ProblemStatus, string> = {
  400: 'Invalid request (VALIDATION_FAILED, INVALID_PATH, INVALID_TIMESTAMP, INSTANT_BEFORE_CHANNEL, HTTP_MALFORMED)',
  401: 'Not signed in: wallet headers missing, malformed, expired, revoked or not an admin (AUTH_…)',
  403: 'Signed in, but not allowed (PERMISSION_DENIED, ADMIN_SUSPENDED, PUBLISHED_WALLET_REFUSED, LINK_INVALID)',
  404: 'No such channel, folder, file, version, backup or retained instant (…_NOT_FOUND, INSTANT_NOT_RETAINED)',
  409: 'Conflicts with the current state (BACKUP_EXISTS), or names two records an older release stored under look-alike spellings (NAME_AMBIGUOUS, with lookalikes)',
  412: 'If-Match / If-None-Match not met; nothing changed (PRECONDITION_FAILED, with currentEtag)',
  413: 'The body is too large (PAYLOAD_TOO_LARGE)',
  415: 'A body of a type this operation does not read (UNSUPPORTED_MEDIA_TYPE)',
  416: 'The Range is outside the file (RANGE_NOT_SATISFIABLE, with size and Content-Range: bytes */size)',
  429: 'Too many failed sign-ins, or contract-wallet checks under way, from this address (RATE_LIMITED, with Retry-After)',
  500: 'Internal error or a stored copy failed its sha256 check (INTERNAL_ERROR, INTEGRITY_FAILED)',
  503: 'A dependency is unavailable (SERVICE_UNAVAILABLE, STORAGE_UNAVAILABLE, CONTRACT_WALLET_UNAVAILABLE)',
  507: 'The storage is full (INSUFFICIENT_STORAGE)',
};

export type ProblemStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 416 | 429 | 500 | 503 | 507;

/**
 * Response entries for error statuses, each an application/problem+json body: declared per media
 * type, so the document names the type the service really sends (Fastify serializes with it too).
 */
export function problemResponses<S extends ProblemStatus>(...statuses: S[]): Record<S, typeof problemRef> {
  const entries = statuses.map((status) => [
    status,
    { description: MEANINGS[status], content: { [PROBLEM_CONTENT_TYPE]: { schema: problemRef } } },
  ]);
  // Typed as the bare reference, which the type provider reads as an unknown payload, as it should:
  // a route never sends a problem itself, the error handler does.
  return Object.fromEntries(entries) as unknown as Record<S, typeof problemRef>;
}

/** Every operation can answer these: a malformed request (no Host, a bad parameter), and an internal error. */
export const baseErrorResponses = problemResponses(400, 500);

/** What a wallet-authenticated operation adds: no or bad credentials, not allowed, the sign-in limit, an unavailable dependency. */
export const authenticatedErrorResponses = { ...baseErrorResponses, ...problemResponses(401, 403, 429, 503) };

/**
 * What every operation on a channel path adds: no such channel (folder, file…), and a channel name,
 * folder or file name that names two records an older release stored under look-alike spellings.
 */
export const channelErrorResponses = { ...authenticatedErrorResponses, ...problemResponses(404, 409) };
