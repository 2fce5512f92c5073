import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors/app-error.ts';
import { nameList, plural } from './name-list.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A browser page, not an API operation: the query of its address is the browser's (a bookmark,
     * a link with tracking tags), the page reads nothing from it, and refusing it would only turn a
     * working link into an error.
     */
    anyQuery?: boolean;
  }
}

type QueryCheck = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * Every route takes exactly the query parameters its querystring schema declares, and none when it
 * declares no schema. An unknown one is refused (400 VALIDATION_FAILED naming it), never ignored:
 * a misspelt `?backup=` would otherwise restore the newest backup instead of the one asked for, and
 * `?dry_run=true` would turn a dry run into a restore. One mechanism for every route, so that no
 * route can forget it; the schemas also get `additionalProperties: false`, which is what they mean.
 */
async function queryParameters(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.anyQuery) return;
    const querystring = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
    const declared = Object.keys(querystring?.properties ?? {});
    if (querystring !== undefined && route.schema) route.schema.querystring = { ...querystring, additionalProperties: false };
    // First: what the request asks must be understood before anything else reads it.
    route.preValidation = [refuseUnknown(declared), ...[route.preValidation ?? []].flat()];
  });
}

function refuseUnknown(declared: readonly string[]): QueryCheck {
  const known = new Set(declared);
  return function refuseUnknownQueryParameters(request, _reply, done) {
    const unknown: string[] = [];
    for (const name in request.query as Record<string, unknown>) if (!known.has(name)) unknown.push(name);
    if (unknown.length === 0) return done();
    done(new AppError('VALIDATION_FAILED', unknownQueryParameters(unknown, declared)));
  };
}

/** The detail of that refusal: what was not understood, and what the operation does take. */
export function unknownQueryParameters(unknown: readonly string[], declared: readonly string[]): string {
  const takes = declared.length === 0 ? 'this operation takes no query parameter' : `this operation takes ${declared.join(', ')}`;
  return `Unknown ${plural('query parameter', unknown.length)}: ${nameList(unknown)}; ${takes}`;
}

export default fp(queryParameters, { name: 'query-parameters' });
