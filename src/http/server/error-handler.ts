import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError, type ErrorCode, isAppError } from '../../errors/app-error.ts';
import { censorUrl } from '../../logging/logger.ts';
import { PROBLEM_CONTENT_TYPE, statusTitle } from '../schemas/problem.ts';
import { formatRefusal } from './format-refusals.ts';

/** RFC 9457 problem details, with the stable `code` clients branch on. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance: string;
  requestId: string;
  [extra: string]: unknown;
}

/** Fastify's own 4xx errors, given codes of ours so that every error has the one shape. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'VALIDATION_FAILED',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'VALIDATION_FAILED',
  FST_ERR_MAX_PARAM_LENGTH: 'URI_TOO_LONG',
  FST_ERR_BAD_URL: 'INVALID_PATH',
};

export function toAppError(error: FastifyError | Error): AppError {
  if (isAppError(error)) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    return new AppError(
      'VALIDATION_FAILED',
      `Invalid request: ${unknownMemberOf(fastifyError) ?? fastifyError.message}${allowedValuesOf(fastifyError)}`,
    );
  }
  const mapped = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped, fastifyError.message);
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_FAILED', fastifyError.message);
  }
  return new AppError('INTERNAL_ERROR', 'Internal error; the server log has the details under this requestId');
}

/** Ajv says "must NOT have additional properties" without naming the one; the caller needs its name. */
function unknownMemberOf(error: FastifyError): string | undefined {
  const refusal = error.validation?.find((v) => v.keyword === 'additionalProperties');
  const member = refusal?.params.additionalProperty;
  if (refusal === undefined || typeof member !== 'string') return undefined;
  return `${error.validationContext ?? 'body'}${refusal.instancePath} has the unknown member ${JSON.stringify(member.slice(0, 60))}, which this operation does not take`;
}

/** Ajv says "must be equal to one of the allowed values" without naming them; the caller needs them. */
function allowedValuesOf(error: FastifyError): string {
  const allowed = error.validation?.find((v) => v.keyword === 'enum')?.params.allowedValues;
  return Array.isArray(allowed) ? ` (${allowed.map((value) => JSON.stringify(value)).join(', ')})` : '';
}

/**
 * A problem's `instance`: the request's path, without its query and with what a path may hold of a
 * secret redacted (an invitation's token, which accepts it), as the request log writes it: a problem
 * is shown, copied into tickets and logged by clients, and must never carry a credential.
 */
export function problemInstance(target: string): string {
  return censorUrl(target.split('?')[0]!);
}

function problemOf(request: FastifyRequest, error: AppError): Problem {
  return {
    ...error.extra,
    type: 'about:blank',
    title: statusTitle(error.status),
    status: error.status,
    detail: error.message,
    code: error.code,
    instance: problemInstance(request.url),
    requestId: request.id,
  };
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  if (error.status === 429 && typeof error.extra?.retryAfterSeconds === 'number') {
    reply.header('Retry-After', String(error.extra.retryAfterSeconds));
  }
  // RFC 9110 §15.5.17: a 416 tells the client how long the representation is.
  if (error.status === 416 && typeof error.extra?.size === 'number') reply.header('Content-Range', `bytes */${error.extra.size}`);
  return reply.code(error.status).type(PROBLEM_CONTENT_TYPE).send(problemOf(request, error));
}

/**
 * For errors the router raises before any route or hook runs (a segment over maxParamLength, a
 * malformed escape): Fastify would answer them in its own JSON, and no onSend hook reaches that
 * reply, so the answer is written here, whole, with the headers every answer carries.
 */
export function sendRouterProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  error: FastifyError | Error,
  headers: Record<string, string | string[]>,
): void {
  const body = JSON.stringify(problemOf(request, toAppError(error)));
  reply.hijack();
  reply.raw.writeHead(toAppError(error).status, {
    ...headers,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
  });
  reply.raw.end(body);
}

interface ErrorHandlerOptions {
  /** Told of every error answer (metrics). */
  onError?: (error: AppError) => void;
  /** Records the refusal in an audit log where the route asks for it (refusal-audit.ts), before the answer. */
  recordRefusal?: (request: FastifyRequest, error: AppError) => Promise<void>;
}

async function errorHandler(app: FastifyInstance, options: ErrorHandlerOptions): Promise<void> {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const appError = formatRefusal(error, request) ?? toAppError(error);
    options.onError?.(appError);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    await options.recordRefusal?.(request, appError);
    return sendProblem(request, reply, appError);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(request, reply, new AppError('NOT_FOUND', `No route ${request.method} ${problemInstance(request.url)}`)),
  );
}

export default fp(errorHandler, { name: 'error-handler' });
