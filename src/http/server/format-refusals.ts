import type { FastifyError, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.ts';
import { malformedInstant } from '../../time/rfc3339.ts';

/*
 * A value refused by its schema's `format` would be answered in Ajv's words ("querystring/at must
 * match format "date-time""), which say neither what was sent nor what would do. Such refusals are
 * worded here as the service's own checks word theirs (a backup timestamp's, an instant's): the
 * parameter, an example of a right value, and what was sent.
 */

/** Each format a request schema declares, worded; a format missing here keeps Ajv's words. */
const WORDINGS: Record<string, (name: string, value: string) => string> = {
  'date-time': malformedInstant,
};

/** Where Fastify found what it validated, by its validation context. */
const INPUTS: Record<string, (request: FastifyRequest) => unknown> = {
  querystring: (request) => request.query,
  params: (request) => request.params,
  headers: (request) => request.headers,
  body: (request) => request.body,
};

/** The refusal of a value of the wrong format, worded; undefined for any other validation error. */
export function formatRefusal(error: FastifyError, request: FastifyRequest): AppError | undefined {
  const failure = error.validation?.find((candidate) => candidate.keyword === 'format');
  const wording = WORDINGS[String(failure?.params.format)];
  // A property of the validated object (/at → at), as every parameter is.
  const [name, ...deeper] = failure?.instancePath.split('/').slice(1) ?? [];
  if (wording === undefined || name === undefined || deeper.length > 0) return undefined;
  const input = INPUTS[error.validationContext ?? '']?.(request) as Record<string, unknown> | undefined;
  return new AppError('VALIDATION_FAILED', wording(name, String(input?.[name] ?? '')));
}
