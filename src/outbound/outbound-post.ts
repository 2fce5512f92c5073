import { type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import type { CheckedTarget } from './outbound-guard.ts';

/**
 * One POST to a target checkOutboundUrl let through, to the address it checked and nowhere else.
 * A tenant's receiver is not trusted to behave: redirects are not followed (a 3xx would lead past
 * the check), only a short excerpt of the answer is read, and one deadline bounds the whole call.
 * `latencyMs` runs from the start to the answer's status line and headers. Once those have come, the
 * call resolves with the status even if the excerpt is cut short by the deadline, an abort or a
 * dropped connection: the receiver did answer. Before, it rejects with a short Error (no URL).
 */
export async function postChecked(
  target: CheckedTarget,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; excerptBytes?: number; signal?: AbortSignal },
): Promise<{ status: number; excerpt: string; latencyMs: number }> {
  const { url, hostname } = target;
  const excerptBytes = options.excerptBytes ?? 512;
  const https = url.protocol === 'https:';
  const requestOptions: RequestOptions & { servername?: string } = {
    method: 'POST',
    host: hostname,
    port: url.port === '' ? (https ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    // The length is the body's own, whatever the caller's headers said.
    headers: { ...withoutLength(headers), 'content-length': String(Buffer.byteLength(body)) },
    // The name is never looked up again: the connection goes to the checked address. Host header
    // and certificate check still use the name, so a receiver behind TLS verifies as usual.
    lookup: pinnedLookup(target),
    // Not pooled: a kept-alive socket would outlive the check that chose its address.
    agent: false,
  };
  // SNI carries names only (RFC 6066); for an address the certificate is checked against it all the same.
  if (https && isIP(hostname) === 0) requestOptions.servername = hostname;
  // Credentials in the URL are how a receiver asks for Basic authentication.
  if (url.username !== '' || url.password !== '') {
    requestOptions.auth = `${decoded(url.username)}:${decoded(url.password)}`;
  }
  if (options.signal?.aborted) throw new Error('aborted before sending');

  return new Promise((resolve, reject) => {
    const started = performance.now();
    let status: number | undefined;
    let latencyMs = 0;
    let req: ClientRequest | undefined;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let received = 0;

    let settled = false;
    const settle = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      // Whatever is still coming is not wanted: the socket goes, and with it a body of any size.
      req?.destroy();
      response?.destroy();
      // Once the receiver has answered, its status is the outcome, even if the excerpt was cut short.
      if (status !== undefined) resolve({ status, excerpt: excerptOf(Buffer.concat(chunks).subarray(0, excerptBytes)), latencyMs });
      else reject(error ?? new Error('no answer'));
    };
    const fail = (reason: string) => (): void => settle(new Error(reason));
    const onAbort = fail('aborted');
    const timer = setTimeout(fail(`timed out after ${options.timeoutMs} ms`), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const answered = (res: IncomingMessage): void => {
      response = res;
      status = res.statusCode ?? 0;
      latencyMs = Math.round(performance.now() - started);
      if (excerptBytes <= 0) {
        settle();
        return;
      }
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= excerptBytes) settle();
      });
      res.on('end', () => settle());
      res.on('error', () => settle());
      res.on('close', () => settle());
    };
    try {
      req = (https ? httpsRequest : httpRequest)(requestOptions, answered);
    } catch (error) {
      // Node refuses some requests before sending (a header value with a line break): the
      // caller's mistake, named without the value.
      const code = (error as { code?: unknown }).code;
      settle(new Error(`request not sent (${typeof code === 'string' ? code : 'invalid request'})`, { cause: error }));
      return;
    }
    req.on('error', (error) => settle(new Error(describeFailure(error), { cause: error })));
    req.end(body);
  });
}

const withoutLength = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'content-length'));

/** A URL's user or password as sent; a stray % that is no escape (the URL parser keeps it) stays as it is. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Node's lookup contract, answered with the checked address whatever the name: `all` wants a list. */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (hostname, options, callback) => {
    // Only the checked name is answered: anything else asking is a mistake, not to be sent anywhere.
    if (hostname.replace(/\.$/, '').toLowerCase() !== target.hostname.toLowerCase()) {
      callback(new Error('lookup of a host that was not checked'), '');
    } else if (options.all === true) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

const FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
};

/**
 * A network failure in a few words and its code. Not the error's own message: it is meant for the
 * tenant's delivery log, and a library's message may quote more than the tenant should see.
 */
function describeFailure(error: Error): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[A-Z0-9_]{1,60}$/.test(code)) return 'network error';
  const known = FAILURES[code];
  if (known !== undefined) return `${known} (${code})`;
  if (/^(ERR_TLS|ERR_SSL|ERR_OSSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED|HOSTNAME_MISMATCH)/.test(code)) return `TLS failed (${code})`;
  if (code.startsWith('HPE_')) return `malformed HTTP answer (${code})`;
  return `network error (${code})`;
}

// C0 and C1 controls and DEL (\p{Cc}), line and paragraph separators and the bidirectional
// controls: an excerpt is shown in logs and the console, where these would forge lines, drive a
// terminal or reorder text. Tab, CR and LF become blanks first, so that an answer stays readable.
const UNSAFE = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** UTF-8 text of an answer's first bytes; a character cut at the end is dropped, not garbled. */
function excerptOf(bytes: Buffer): string {
  return new StringDecoder('utf8')
    .write(bytes)
    .replace(/[\t\n\r]/g, ' ')
    .replace(UNSAFE, '\ufffd');
}
