import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, diffieHellman, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * What age-encrypt.ts and age-decrypt.ts share: the constants and primitives of the age v1 format
 * (C2SP age spec, https://c2sp.org/age), X25519 recipients only. Section names in comments are the
 * spec's.
 */

/** Why an age operation was refused: `reason` for code, `message` for people. */
export type AgeErrorReason =
  | 'not-age'
  | 'unsupported'
  | 'malformed-header'
  | 'bad-key'
  | 'no-match'
  | 'header-mac'
  | 'chunk-auth'
  | 'truncated'
  | 'trailing-data'
  | 'empty-last-chunk';

/** A refusal of an age file or key. Messages name what failed and never include a secret key. */
export class AgeError extends Error {
  override readonly name = 'AgeError';

  constructor(
    readonly reason: AgeErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** "Header": the version line of the only format specified. */
export const VERSION_LINE = 'age-encryption.org/v1';
/** "X25519 recipient stanza": the first argument, and the HKDF info of the wrap key. */
export const X25519_STANZA_TYPE = 'X25519';
export const X25519_INFO = 'age-encryption.org/v1/X25519';
/** "File key": 128 bits. */
export const FILE_KEY_LENGTH = 16;
/** "Payload": the nonce that starts the payload. */
export const PAYLOAD_NONCE_LENGTH = 16;
/** "Payload": plaintext chunks of 64 KiB, each followed by its Poly1305 tag. */
export const CHUNK_SIZE = 64 * 1024;
export const TAG_LENGTH = 16;
export const ENCRYPTED_CHUNK_SIZE = CHUNK_SIZE + TAG_LENGTH;
/** "Recipient stanza": bodies are wrapped at 64 columns. */
export const BODY_LINE_LENGTH = 64;
const KEY_LENGTH = 32;
const ZERO_NONCE = Buffer.alloc(12);

// --- base64 ("Conventions"): standard alphabet, no padding, canonical only.

const BASE64_CHARS = /^[A-Za-z0-9+/]*$/;

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64').replace(/=+$/, '');
}

/**
 * Decodes unpadded base64, or returns undefined when it is not the canonical encoding of some
 * bytes: decoders "MUST reject non-canonical encodings and encodings ending with `=`". Node's own
 * decoder is lenient (it skips foreign characters and ignores stray bits), so the result is
 * re-encoded and compared.
 */
export function decodeCanonicalBase64(text: string): Buffer | undefined {
  if (!BASE64_CHARS.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return encodeBase64(bytes) === text ? bytes : undefined;
}

/** Whether `text` is only characters of the base64 alphabet (the ABNF's base64char). */
export function isBase64Chars(text: string): boolean {
  return BASE64_CHARS.test(text);
}

// --- keys derived with HKDF-SHA-256 ("Conventions": 32 bytes, extract then expand).

export function hkdf(ikm: Uint8Array, salt: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, KEY_LENGTH));
}

/** "Header MAC": the HMAC key. */
export function headerMacKey(fileKey: Uint8Array): Buffer {
  return hkdf(fileKey, new Uint8Array(0), 'header');
}

/** "Payload": the payload key, from the file key and the payload's nonce. */
export function payloadKey(fileKey: Uint8Array, nonce: Uint8Array): Buffer {
  return hkdf(fileKey, nonce, 'payload');
}

// --- ChaCha20-Poly1305 (RFC 7539), no associated data.

export function seal(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array): Buffer {
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_LENGTH });
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** The plaintext, or undefined when the tag does not authenticate `sealed` (or it is shorter than a tag). */
export function open(key: Uint8Array, nonce: Uint8Array, sealed: Uint8Array): Buffer | undefined {
  if (sealed.length < TAG_LENGTH) return undefined;
  const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_LENGTH });
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_LENGTH));
  const plaintext = decipher.update(sealed.subarray(0, sealed.length - TAG_LENGTH));
  try {
    return Buffer.concat([plaintext, decipher.final()]);
  } catch {
    return undefined;
  }
}

/** "X25519 recipient stanza": the file key is wrapped with a fixed all-zero nonce (each wrap key is used once). */
export function wrapFileKey(wrapKey: Uint8Array, fileKey: Uint8Array): Buffer {
  return seal(wrapKey, ZERO_NONCE, fileKey);
}

export function unwrapFileKey(wrapKey: Uint8Array, body: Uint8Array): Buffer | undefined {
  return open(wrapKey, ZERO_NONCE, body);
}

/**
 * "Payload": the 12-byte nonce of chunk `index`, an 11-byte big-endian counter then 0x01 for the
 * final chunk, 0x00 before. The counter's top 5 bytes stay zero: 2^48 chunks are 16 EiB.
 */
export function chunkNonce(index: number, last: boolean): Buffer {
  const nonce = Buffer.alloc(12);
  nonce.writeUIntBE(index, 5, 6);
  nonce[11] = last ? 1 : 0;
  return nonce;
}

// --- X25519 (RFC 7748) through node:crypto, which takes keys as DER; these prefixes wrap a raw 32-byte key.

const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');

export function x25519PrivateKey(secret: Uint8Array): KeyObject {
  if (secret.length !== KEY_LENGTH) throw new AgeError('bad-key', `an X25519 identity is ${KEY_LENGTH} bytes, not ${secret.length}`);
  return createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, secret]), format: 'der', type: 'pkcs8' });
}

/** X25519(secret, basepoint): the recipient of an identity, or the share of an ephemeral secret. */
export function x25519PublicKey(privateKey: KeyObject): Buffer {
  return createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(SPKI_X25519_PREFIX.length);
}

/**
 * X25519(secret, peer), or undefined when it is all zero (the peer is a low-order point): the spec
 * says identities "MUST abort" then, and a recipient that gives it would wrap the file key under a
 * key anyone can derive. OpenSSL refuses to derive an all-zero secret, hence the catch; the zero
 * check stands in case another build returns it.
 */
export function x25519SharedSecret(privateKey: KeyObject, peer: Uint8Array): Buffer | undefined {
  if (peer.length !== KEY_LENGTH) return undefined;
  try {
    const publicKey = createPublicKey({ key: Buffer.concat([SPKI_X25519_PREFIX, peer]), format: 'der', type: 'spki' });
    const shared = diffieHellman({ privateKey, publicKey });
    return shared.some((byte) => byte !== 0) ? shared : undefined;
  } catch {
    return undefined;
  }
}

/** "X25519 recipient stanza": the wrap key, from the shared secret and salt = ephemeral share || recipient. */
export function x25519WrapKey(sharedSecret: Uint8Array, share: Uint8Array, recipient: Uint8Array): Buffer {
  return hkdf(sharedSecret, Buffer.concat([share, recipient]), X25519_INFO);
}
