import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { noteLinkSignatures, noteRequestCredentials } from './log-secrets.ts';

export interface HttpResponse {
  /** The URL requested. */
  url: string;
  status: number;
  /** Lowercase names; repeated headers joined by ", " as Node does. */
  headers: http.IncomingHttpHeaders;
  /** Name/value pairs exactly as they arrived on the wire, one per header line. */
  rawHeaders: [string, string][];
  body: string;
  /** The body exactly as received, for binary downloads. */
  bytes: Buffer;
  json(): any;
}

type RequestOptions = { method?: string; headers?: object; body?: string | Buffer };

/** Apps of this process that answer for an origin without a socket (test-service's inject transport). */
const inProcess = new Map<string, Pick<FastifyInstance, 'inject'>>();

/**
 * Makes `request()` hand every request for `origin` to `app.inject` (light-my-request: the same
 * routes, hooks and serializers, no socket). Returns the function that stops it.
 */
export function serveInProcess(origin: string, app: Pick<FastifyInstance, 'inject'>): () => void {
  const key = new URL(origin).origin;
  if (inProcess.has(key)) throw new Error(`${key} is already served in this process`);
  inProcess.set(key, app);
  return () => inProcess.delete(key);
}

export function servedInProcess(origin: string): boolean {
  return inProcess.has(new URL(origin).origin);
}

/**
 * A plain HTTP/1.1 request that keeps the raw header lines (fetch would merge them): over a
 * loopback socket, or through `app.inject` when the origin is served in this process.
 */
export function request(baseUrl: string, path: string, options: RequestOptions = {}): Promise<HttpResponse> {
  const url = new URL(path, baseUrl);
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const method = options.method ?? 'GET';
  // What this run sends and gets as credentials, so that the log scan knows them (see log-secrets.ts).
  noteRequestCredentials(url, headers);
  const app = inProcess.get(url.origin);
  const answer = app ? injected(app, url, method, headers, options.body) : overSocket(url, method, headers, options.body);
  return answer.then((response) => {
    // A signed link comes as a short text (a restore's answer); file bytes are no place to look for one.
    if (response.bytes.length <= 64 * 1024 && /^text\/plain|json/.test(String(response.headers['content-type'])))
      noteLinkSignatures(response.body);
    return response;
  });
}

function overSocket(url: URL, method: string, headers: Record<string, string>, body: string | Buffer | undefined): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const rawHeaders: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) rawHeaders.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve(response(url, res.statusCode!, res.headers, rawHeaders, Buffer.concat(chunks)));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

// Methods whose empty body Node's client sends without Content-Length: 0.
const NO_DEFAULT_BODY = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The request the socket path puts on the wire, handed to the app instead: the Host and
 * `Connection: close` Node's client adds (agent: false), and `Content-Length: 0` for an empty POST
 * or PUT. A body goes whole with its Content-Length where Node's client would chunk it: the
 * service reads both alike, and light-my-request ends a streamed request that a route stops
 * reading (an upload over MAX_FILE_BYTES) as a dropped connection, where a server would answer.
 * The answer is read from the head the server wrote, so that header lines, their order and
 * Node's automatic headers are the wire's — except `Connection`, which a response without a
 * connection keeps at keep-alive: what connections do is tested over a socket.
 */
async function injected(
  app: Pick<FastifyInstance, 'inject'>,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
): Promise<HttpResponse> {
  const upper = method.toUpperCase();
  const hasLength = Object.keys(headers).some((name) => name.toLowerCase() === 'content-length');
  const wire: Record<string, string> = { host: url.host, connection: 'close' };
  if ((body === undefined || body.length === 0) && !hasLength && !NO_DEFAULT_BODY.has(upper)) wire['content-length'] = '0';
  const answer = await app.inject({
    method: upper as 'GET',
    url: url.pathname + url.search,
    headers: { ...wire, ...headers },
    payload: body,
  });
  const rawHeaders = headLines((answer.raw.res as unknown as { _header: string })._header);
  return response(url, answer.statusCode, joinedHeaders(rawHeaders), rawHeaders, answer.rawPayload);
}

/** The header lines of a response head as the server serialised it ("HTTP/1.1 200 OK\r\nName: value\r\n…"). */
function headLines(head: string): [string, string][] {
  return head
    .split('\r\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon), line.slice(colon + 1).trim()];
    });
}

// As Node's IncomingMessage#headers: these keep their first value, set-cookie is a list, cookie
// joins with "; " and every other repeated header with ", ".
const SINGLE_VALUED = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

function joinedHeaders(lines: [string, string][]): http.IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (const [rawName, value] of lines) {
    const name = rawName.toLowerCase();
    const seen = headers[name];
    if (name === 'set-cookie') headers[name] = [...((seen as string[] | undefined) ?? []), value];
    else if (seen === undefined) headers[name] = value;
    else if (!SINGLE_VALUED.has(name)) headers[name] = `${seen}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return headers;
}

function response(
  url: URL,
  status: number,
  headers: http.IncomingHttpHeaders,
  rawHeaders: [string, string][],
  bytes: Buffer,
): HttpResponse {
  const body = bytes.toString('utf8');
  return { url: url.href, status, headers, rawHeaders, body, bytes, json: () => JSON.parse(body) };
}

export function headerLines(response: HttpResponse, name: string): string[] {
  return response.rawHeaders.filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
}
