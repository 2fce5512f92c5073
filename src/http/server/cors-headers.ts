import type { CorsExtras } from '../../config/config.ts';

/**
 * The CORS headers every answer carries. Their values are the service contract's, to the letter
 * (docs/api.md, "The two contract requests", states them): a client may compare them.
 * A deployment whose pages on another origin need more (a conditional write's If-Match, reading
 * a restore's X-Kept-Version-Id or an upload's ETag) adds names with CORS_EXTRA_ALLOW_HEADERS
 * and CORS_EXTRA_EXPOSE_HEADERS, which are appended; unset, nothing changes. Same-origin pages
 * (the console) need neither.
 */
export const CONTRACT_ALLOW_HEADERS = [
  'Origin',
  'Content-Type',
  'Accept',
  'Authorization',
  'Accept-Language',
  'connection',
  'Cache-Control',
  'Access-Control-Request-Method',
  'Access-Control-Request-Headers',
  'X-SIG',
  'X-WAL',
  'X-MES',
];
export const CONTRACT_EXPOSE_HEADERS = ['Access-Control-Allow-Origin', 'Access-Control-Allow-Credentials'];
export const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

export interface CorsHeaders {
  /** The Access-Control-* headers of an answer, in the contract's order, extras last. */
  headers: Record<string, string>;
  /** Whether a preflight may ask for this request header (lower case). */
  allowsHeader(name: string): boolean;
}

export function corsHeaders(extras: CorsExtras): CorsHeaders {
  const allow = appendNew(CONTRACT_ALLOW_HEADERS, extras.allowHeaders);
  const expose = appendNew(CONTRACT_EXPOSE_HEADERS, extras.exposeHeaders);
  const allowed = new Set(allow.map((name) => name.toLowerCase()));
  return {
    headers: {
      'Access-Control-Allow-Headers': allow.join(', '),
      'Access-Control-Allow-Credentials': 'true',
      'Access-Control-Allow-Methods': ALLOWED_METHODS.join(', '),
      'Access-Control-Expose-Headers': expose.join(', '),
    },
    allowsHeader: (name) => allowed.has(name),
  };
}

/** `base` then every name of `extra` not in it yet (names compare without case). */
function appendNew(base: readonly string[], extra: readonly string[]): string[] {
  const seen = new Set(base.map((name) => name.toLowerCase()));
  const names = [...base];
  for (const name of extra) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    names.push(name);
  }
  return names;
}
