/**
 * Checks a webhook delivery as Standard Webhooks defines it (standardwebhooks.com): the HMAC-SHA256
 * of `${webhook-id}.${webhook-timestamp}.${body}` under the endpoint's secret must be one of the
 * `v1,` signatures of `webhook-signature`, and the timestamp recent. WebCrypto, TextEncoder and atob
 * only, so that it runs in browsers, Node, Deno and edge workers alike.
 */

/** The delivery is not one the service signed (or not recently): answer it with a 400 and drop it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export interface VerifyWebhookOptions {
  /** How far the timestamp may lie from now, either way: 300 seconds unless set. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch, as Date.now (which it defaults to). */
  now?: () => number;
}

/** Headers as fetch (Headers) or Node's http (IncomingHttpHeaders, any case of names) give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const PREFIX = 'whsec_';
const DEFAULT_TOLERANCE_SECONDS = 300;
const utf8 = new TextEncoder();

/**
 * The delivery's event, parsed from `body`, once one of its signatures is the secret's; else a
 * WebhookVerificationError saying why. Pass the body exactly as received (the raw text or bytes,
 * never JSON parsed and serialised again: that changes the bytes signed). The secret is taken with
 * or without its `whsec_` prefix, as the spec's libraries take it. During a rotation the service
 * signs with both secrets, so the old one and the new one both verify.
 */
export async function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Promise<unknown> {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!Number.isFinite(tolerance) || tolerance < 0) throw new TypeError('toleranceSeconds must be a number of seconds, 0 or more');
  // Checked first: a receiver with a damaged secret should hear it on every delivery, not only on valid ones.
  const key = keyOf(secret);

  const id = single(headers, 'webhook-id');
  const timestamp = single(headers, 'webhook-timestamp');
  const signatures = all(headers, 'webhook-signature');
  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a whole number of seconds');
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const age = now - Number(timestamp);
  if (age > tolerance) throw new WebhookVerificationError(`webhook-timestamp is too old (${age} s ago, at most ${tolerance} s allowed)`);
  if (-age > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is too new (${-age} s ahead, at most ${tolerance} s allowed)`);

  const bytes = typeof body === 'string' ? utf8.encode(body) : body;
  const expected = await hmacSha256(key, concat(utf8.encode(`${id}.${timestamp}.`), bytes));
  // Other versions (v1a: asymmetric) are skipped; a signature that is not base64 matches nothing.
  const given = signatures.flatMap((signature) => (signature.startsWith('v1,') ? [bytesOfBase64(signature.slice(3))] : []));
  let matched = false;
  for (const candidate of given) if (candidate !== undefined && sameBytes(candidate, expected)) matched = true;
  if (!matched) {
    throw new WebhookVerificationError(
      given.length === 0 ? 'webhook-signature holds no v1 signature' : `no matching signature (of ${given.length} v1 signatures)`,
    );
  }
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
}

/** The HMAC key: the base64 after the optional prefix. Its text never goes into a message, which may be logged. */
function keyOf(secret: string): Uint8Array<ArrayBuffer> {
  const key = bytesOfBase64(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret);
  if (key === undefined || key.length === 0) throw new WebhookVerificationError(`malformed secret: expected ${PREFIX} and base64`);
  return key;
}

/** Every value of the header, however it came: a list, several lines joined by ", ", or spaces. */
function all(headers: WebhookHeaders, name: string): string[] {
  const values: string[] = [];
  if (isHeaders(headers)) {
    const value = headers.get(name);
    if (value !== null) values.push(value);
  } else {
    // Node lowercases the names it parses, but a framework, a test or a queue may not have.
    for (const [key, value] of Object.entries(headers)) {
      if (key.toLowerCase() !== name || value === undefined) continue;
      values.push(...(typeof value === 'string' ? [value] : value));
    }
  }
  // Base64 has no comma: a trailing one is the joint of two header lines, not part of a signature.
  const parts = values.flatMap((value) => value.split(/\s+/)).map((part) => part.replace(/,$/, ''));
  const present = parts.filter((part) => part !== '');
  if (present.length === 0) throw new WebhookVerificationError(`missing header ${name}`);
  return present;
}

/** A fetch Headers, of this realm or another's (a polyfill, a framework's own): a plain object's values are never functions. */
function isHeaders(headers: WebhookHeaders): headers is Headers {
  return typeof headers.get === 'function';
}

function single(headers: WebhookHeaders, name: string): string {
  const values = all(headers, name);
  if (values.length > 1) throw new WebhookVerificationError(`header ${name} holds more than one value`);
  return values[0] as string;
}

async function hmacSha256(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  // Browsers give WebCrypto to secure contexts only (https, localhost).
  if (subtle === undefined) throw new Error('verifyWebhook needs WebCrypto (crypto.subtle): in a browser, a secure context');
  const hmacKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', hmacKey, data));
}

/** A copy in a buffer of its own, which WebCrypto takes (not a view of a shared one). */
function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** Standard base64 (padding optional, as atob takes it); undefined when it is not. */
function bytesOfBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Compares every byte whatever the first difference, so that the time taken tells nothing of where it lies. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}
