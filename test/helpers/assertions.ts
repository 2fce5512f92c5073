import assert from 'node:assert/strict';
import { type HttpResponse, headerLines } from './http.ts';

/**
 * The response headers of the service contract, on every /api response: its values to the letter
 * (docs/api.md, "The two contract requests"). Never edited to match a feature: a feature that needs more
 * adds it by a setting whose default keeps these (CORS_EXTRA_ALLOW_HEADERS, CORS_EXTRA_EXPOSE_HEADERS).
 */
export const CONTRACT_HEADERS: Record<string, string> = {
  'access-control-allow-headers':
    'Origin, Content-Type, Accept, Authorization, Accept-Language, connection, Cache-Control, Access-Control-Request-Method, Access-Control-Request-Headers, X-SIG, X-WAL, X-MES',
  'access-control-allow-credentials': 'true',
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD',
  'access-control-expose-headers': 'Access-Control-Allow-Origin, Access-Control-Allow-Credentials',
  'x-content-type-options': 'nosniff',
  'x-xss-protection': '0',
  'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
  pragma: 'no-cache',
  expires: '0',
  'x-frame-options': 'DENY',
};

export function assertContractHeaders(response: HttpResponse): void {
  for (const [name, value] of Object.entries(CONTRACT_HEADERS)) {
    assert.equal(response.headers[name], value, `header ${name}`);
  }
  assert.deepEqual(headerLines(response, 'vary'), ['Origin', 'Access-Control-Request-Method', 'Access-Control-Request-Headers']);
}

/** An error in the project's one format: RFC 9457 problem+json with a stable code, and the contract headers. */
export function assertProblem(response: HttpResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.body);
  assert.equal(response.headers['content-type'], 'application/problem+json');
  const problem = response.json();
  assert.equal(problem.code, code, response.body);
  assert.equal(problem.status, status);
  assert.equal(typeof problem.title, 'string');
  assert.equal(typeof problem.detail, 'string');
  assert.ok(problem.detail.length > 10, 'detail says what was wrong');
  // Its path; an invitation's token, a secret, redacted (as the request log writes it).
  const path = new URL(response.url).pathname.replace(/^(\/api\/invitations\/)[^/]+(\/accept)$/i, '$1[redacted]$2');
  assert.equal(problem.instance, path);
  assert.equal(typeof problem.requestId, 'string');
  assertContractHeaders(response);
}
