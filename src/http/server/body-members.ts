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

/**
 * A JSON body's members are exactly those its schema declares: an unknown one is refused (400
 * VALIDATION_FAILED naming it), never dropped — the validator's default would strip it silently, and
 * `{"role": "owner"}` or a misspelt `permisions` must not pass as a request that asked for nothing.
 * A body none of whose members is required may be left out: no body asks for nothing.
 */
async function bodyMembers(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    const body = route.schema?.body as ObjectSchema | undefined;
    if (body?.additionalProperties !== false || body.properties === undefined) return;
    route.preValidation = [...[route.preValidation ?? []].flat(), refuseUnknownMembers(body)];
  });
}

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

export default fp(bodyMembers, { name: 'body-members' });
