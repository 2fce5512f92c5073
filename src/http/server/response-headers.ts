import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { CorsExtras } from '../../config/config.ts';
import { ALLOWED_METHODS, type CorsHeaders, corsHeaders } from './cors-headers.ts';

/** Fixed by the service contract; sent on every response, errors included. */
const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-XSS-Protection': '0',
  'Cache-Control': 'no-cache, no-store, max-age=0, must-revalidate',
  Pragma: 'no-cache',
  Expires: '0',
  'X-Frame-Options': 'DENY',
};

/** Three separate header lines, as the contract shows them. */
const VARY = ['Origin', 'Access-Control-Request-Method', 'Access-Control-Request-Headers'];
const PREFLIGHT_MAX_AGE_SECONDS = '1800';

/** Compiles CORS_ORIGINS entries (exact origins and `https://*.example.com` patterns) into one test. */
export function originMatcher(patterns: string[]): (origin: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.includes('*')).map((p) => p.toLowerCase()));
  const wildcards = patterns
    .filter((p) => p.includes('*'))
    .map((p) => {
      const [scheme, rest] = p.toLowerCase().split('://*.') as [string, string];
      const escaped = rest.replace(/[.]/g, '\\.');
      return new RegExp(`^${scheme}://[a-z0-9-]+(?:\\.[a-z0-9-]+)*\\.${escaped}$`);
    });
  return (origin) => {
    const lower = origin.toLowerCase();
    return exact.has(lower) || wildcards.some((re) => re.test(lower));
  };
}

function isSameOrigin(request: FastifyRequest, origin: string): boolean {
  return origin.toLowerCase() === `${request.protocol}://${request.host}`.toLowerCase();
}

function refuse(reply: FastifyReply): FastifyReply {
  return reply.code(403).type('text/plain;charset=UTF-8').send('Invalid CORS request');
}

function preflightIsAcceptable(request: FastifyRequest, cors: CorsHeaders): boolean {
  const method = String(request.headers['access-control-request-method']).toUpperCase();
  if (!ALLOWED_METHODS.includes(method)) return false;
  const requested = String(request.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  return requested.every((h) => cors.allowsHeader(h));
}

/**
 * The headers of every answer, for the router's own errors and the answers written before Fastify
 * has a request (client-errors.ts), which reach no hook. Same-origin or origin-less requests are
 * all those can have been, so no Allow-Origin.
 */
export function baseHeaders(extras: CorsExtras): Record<string, string | string[]> {
  return { ...SECURITY_HEADERS, ...corsHeaders(extras).headers, Vary: VARY };
}

const EVERY_RESPONSE_HEADERS: Record<string, string | string[]> = { ...SECURITY_HEADERS, Vary: VARY };
const JSON_WITH_CHARSET = new Set(['application/json; charset=utf-8', 'application/problem+json; charset=utf-8']);

/**
 * Security and CORS headers, as the contract lists them (with the extras a deployment adds,
 * cors-headers.ts). A cross-origin request from an origin not in CORS_ORIGINS is refused outright
 * (403 "Invalid CORS request", no Access-Control-* headers) rather than answered without CORS
 * headers, so that it has no side effect either.
 */
async function responseHeaders(app: FastifyInstance, options: { corsOrigins: string[]; corsExtras: CorsExtras }): Promise<void> {
  const isAllowedOrigin = originMatcher(options.corsOrigins);
  const cors = corsHeaders(options.corsExtras);
  // What a request without Origin gets, in the order the headers always come.
  const noOriginHeaders: Record<string, string | string[]> = { ...EVERY_RESPONSE_HEADERS, ...cors.headers };

  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    // Most requests name no origin: every header at once, in one call.
    if (origin === undefined) {
      reply.headers(noOriginHeaders);
      done();
      return;
    }
    reply.headers(EVERY_RESPONSE_HEADERS);
    const crossOrigin = !isSameOrigin(request, origin);
    const preflight = crossOrigin && request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined;
    if ((crossOrigin && !isAllowedOrigin(origin)) || (preflight && !preflightIsAcceptable(request, cors))) {
      refuse(reply);
      return;
    }
    reply.headers(cors.headers);
    if (crossOrigin) reply.header('Access-Control-Allow-Origin', origin);
    if (preflight) {
      reply.code(200).header('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS).send();
      return;
    }
    done();
  });

  // Fastify appends "; charset=utf-8" to JSON; the contract's Content-Type is the bare media type.
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && JSON_WITH_CHARSET.has(type.toLowerCase())) {
      reply.header('content-type', type.slice(0, type.indexOf(';')));
    }
    done(null, payload);
  });
}

export default fp(responseHeaders, { name: 'response-headers' });
