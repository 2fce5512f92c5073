import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors/app-error.ts';
import { nameList, plural } from './name-list.ts';

type BodyCheck = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

interface ObjectSchema {
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads its body as a stream of bytes itself (a tus upload's PATCH and creation), whatever its method. */
    streamedBody?: boolean;
  }
}

/**
 * A JSON body's members are exactly those its schema declares: an unknown one is refused (400
 * VALIDATION_FAILED naming it), never dropped — the validator's default would strip it silently, and
 * `{"role": "owner"}` or a misspelt `permisions` must not pass as a request that asked for nothing.
 * A body none of whose members is required may be left out: no body asks for nothing.
 */
async function bodyMembers(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    const body = route.schema?.body as ObjectSchema | undefined;
    if (body === undefined) {
      // Last of the route's own checks (after sign-in, and after a restore's own body check, which says more).
      if (takesBody(route) && route.config?.streamedBody !== true)
        route.preHandler = [...[route.preHandler ?? []].flat(), refuseUnreadBody];
      return;
    }
    if (body.additionalProperties !== false || body.properties === undefined) return;
    route.preValidation = [...[route.preValidation ?? []].flat(), refuseUnknownMembers(body)];
  });
}

/** A method whose request may carry a body. */
const takesBody = (route: RouteOptions) => [route.method].flat().some((method) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method));

function refuseUnknownMembers(schema: ObjectSchema): BodyCheck {
  const known = new Set(Object.keys(schema.properties ?? {}));
  const optional = (schema.required ?? []).length === 0;
  return function refuseUnknownBodyMembers(request, _reply, done) {
    if (request.body === undefined && optional) {
      request.body = {};
      return done();
    }
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return done(); // the schema says what it should be
    const unknown = Object.keys(body).filter((name) => !known.has(name));
    if (unknown.length === 0) return done();
    done(
      new AppError(
        'VALIDATION_FAILED',
        `Unknown body ${plural('member', unknown.length)}: ${nameList(unknown)}; this operation takes ${[...known].join(', ')}`,
      ),
    );
  };
}

/** The longest streamed body read to see whether it says nothing (`{}`, `null`, blanks). */
const SAYS_NOTHING_MAX_BYTES = 64;

/**
 * A route that declares no body reads none: one that says something (`{"legalHold": true}` sent to
 * POST …/backups, or to DELETE …/files/{filename}) is refused, naming what it said, instead of being
 * ignored as if it had been acted on. No body, an empty one, `{}` and `null` say nothing. A PUT's
 * streamed body is an upload's bytes, the route's own.
 */
async function refuseUnreadBody(request: FastifyRequest): Promise<void> {
  let body = request.body;
  if (isStreamed(body)) {
    if (request.method === 'PUT') return;
    body = await smallJson(request, body as NodeJS.ReadableStream);
  }
  const said = whatBodySays(body);
  if (said === undefined) return;
  if ('members' in said) {
    throw new AppError(
      'VALIDATION_FAILED',
      `This operation reads no body (send none, {} or null); this one has ${plural('member', said.members.length)} ${nameList(said.members)}, which it would not read`,
    );
  }
  throw new AppError('VALIDATION_FAILED', 'This operation reads no body (send none, {} or null)');
}

/**
 * What a parsed body says: nothing (undefined: none, null, an empty string or `{}`), the members
 * of an object, or the kind of anything else (an array, text, a number).
 */
export function whatBodySays(body: unknown): { members: string[] } | { kind: string } | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' && body.trim() === '') return undefined;
  if (typeof body === 'object' && !Array.isArray(body)) {
    const members = Object.keys(body);
    return members.length === 0 ? undefined : { members };
  }
  if (Array.isArray(body)) return { kind: 'an array' };
  return { kind: typeof body === 'string' ? 'text' : `a ${typeof body}` };
}

/** What a streamed body holds, when it is short enough to be nothing; otherwise a stand-in that is not nothing. */
async function smallJson(request: FastifyRequest, stream: NodeJS.ReadableStream): Promise<unknown> {
  const length = Number(request.headers['content-length'] ?? Number.NaN);
  if (request.headers['transfer-encoding'] === undefined && length === 0) return undefined;
  if (!(length <= SAYS_NOTHING_MAX_BYTES)) return UNREAD;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '' || text === 'null') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNREAD;
  }
}

/** A body that says something this operation cannot read. */
const UNREAD = 'body';

const isStreamed = (body: unknown) =>
  Buffer.isBuffer(body) || (typeof body === 'object' && body !== null && typeof (body as { pipe?: unknown }).pipe === 'function');

export default fp(bodyMembers, { name: 'body-members' });
