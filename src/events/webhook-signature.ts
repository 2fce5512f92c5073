import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (standardwebhooks.com), the side that sends: every delivery carries
 * `webhook-id`, `webhook-timestamp` and `webhook-signature`, so that a receiver can check with any
 * of the spec's libraries (or our client's verifyWebhook) that the service sent this body, and
 * refuse a replay from outside its tolerance window.
 */

export type WebhookSignatureHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

const PREFIX = 'whsec_';
const SECRET_BYTES = 32;
/** The spec asks for keys of 24 to 64 bytes; we only ever make 32, so anything else is a damaged secret. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** A header value can carry no control character, and a space would split the signature list apart. */
const ID_FORM = /^[\x21-\x7e]+$/;

/** A new signing secret, `whsec_` and the base64 of 32 random bytes: the form the spec's libraries take. */
export function newWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/**
 * The headers of one delivery. Each secret signs (the new one first during a rotation, then the
 * old one until it expires) so that a receiver still holding the old secret keeps verifying.
 * A malformed secret throws rather than sending a signature nobody could check.
 */
export function signWebhook(secrets: readonly string[], id: string, timestampSeconds: number, body: string): WebhookSignatureHeaders {
  if (secrets.length === 0) throw new TypeError('A webhook needs at least one secret to be signed with');
  if (!ID_FORM.test(id)) throw new TypeError('A webhook id must be visible ASCII with no space (it travels in a header)');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError('A webhook timestamp is a whole number of seconds since the epoch');
  }
  const signed = `${id}.${timestampSeconds}.${body}`;
  const signatures = secrets.map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed, 'utf8').digest('base64')}`);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    // The same secret twice (a rotation to itself) would only repeat a signature.
    'webhook-signature': [...new Set(signatures)].join(' '),
  };
}

/** The HMAC key of a secret. The message never names the secret: it could end up in a log. */
function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : undefined;
  // Buffer.from(…, 'base64') skips what is not base64: the round trip refuses any such text.
  const key = encoded !== undefined && BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
  if (key === undefined || key.toString('base64') !== encoded || key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new TypeError(`A webhook secret is "${PREFIX}" and the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`);
  }
  return key;
}
