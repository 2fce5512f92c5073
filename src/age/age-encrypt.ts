import { createHmac, randomBytes } from 'node:crypto';
import {
  AgeError,
  BODY_LINE_LENGTH,
  CHUNK_SIZE,
  chunkNonce,
  encodeBase64,
  FILE_KEY_LENGTH,
  headerMacKey,
  PAYLOAD_NONCE_LENGTH,
  payloadKey,
  seal,
  VERSION_LINE,
  wrapFileKey,
  X25519_STANZA_TYPE,
  x25519PrivateKey,
  x25519PublicKey,
  x25519SharedSecret,
  x25519WrapKey,
} from './age-format.ts';

/**
 * age v1 encryption to X25519 recipients (C2SP age spec), binary (no armor), streaming: the
 * header first, then one encrypted 64 KiB chunk at a time, so that no more than a chunk of the
 * plaintext is held whatever its size.
 */

/** "Recipient stanza": a base64 body wrapped at 64 columns, whose last line is shorter (so maybe empty). */
function wrapBody(body: string): string {
  let lines = '';
  for (let start = 0; start <= body.length; start += BODY_LINE_LENGTH) {
    lines += `${body.slice(start, start + BODY_LINE_LENGTH)}\n`;
  }
  return lines;
}

/** "X25519 recipient stanza": a fresh ephemeral secret for each stanza of each file. */
function x25519Stanza(recipient: Uint8Array, position: number, fileKey: Uint8Array): string {
  if (recipient.length !== 32) {
    throw new AgeError('bad-key', `recipient ${position} is ${recipient.length} bytes, not a 32-byte X25519 key`);
  }
  const ephemeral = x25519PrivateKey(randomBytes(32));
  const share = x25519PublicKey(ephemeral);
  const shared = x25519SharedSecret(ephemeral, recipient);
  if (shared === undefined) throw new AgeError('bad-key', `recipient ${position} is a low-order point (all-zero shared secret)`);
  const body = wrapFileKey(x25519WrapKey(shared, share, recipient), fileKey);
  return `-> ${X25519_STANZA_TYPE} ${encodeBase64(share)}\n${wrapBody(encodeBase64(body))}`;
}

/** "Header": the version line, a stanza for each recipient, and the MAC over all of it up to `---`. */
function header(recipients: Uint8Array[], fileKey: Uint8Array): Buffer {
  if (recipients.length === 0) throw new AgeError('bad-key', 'an age file needs at least one recipient');
  const stanzas = recipients.map((recipient, index) => x25519Stanza(recipient, index + 1, fileKey)).join('');
  const macked = `${VERSION_LINE}\n${stanzas}---`;
  const mac = createHmac('sha256', headerMacKey(fileKey)).update(macked, 'ascii').digest();
  return Buffer.from(`${macked} ${encodeBase64(mac)}\n`, 'ascii');
}

/** The source's pieces, checked to be bytes (a Readable with an encoding would give strings). */
async function* piecesOf(source: AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  for await (const piece of source as AsyncIterable<unknown>) {
    if (!(piece instanceof Uint8Array)) throw new TypeError('the plaintext to encrypt must be a stream of bytes');
    yield piece;
  }
}

/**
 * "Payload": the nonce, then the STREAM chunks. A full chunk is sealed as non-final only once a
 * byte after it has been seen, so the final chunk is never empty unless the whole plaintext is,
 * and it is full-size when the plaintext is a multiple of 64 KiB (the spec allows both).
 */
async function* payload(fileKey: Uint8Array, source: AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Buffer> {
  const nonce = randomBytes(PAYLOAD_NONCE_LENGTH);
  const key = payloadKey(fileKey, nonce);
  yield nonce;
  const pending = Buffer.alloc(CHUNK_SIZE);
  let filled = 0;
  let index = 0;
  for await (const piece of piecesOf(source)) {
    for (let offset = 0; offset < piece.length; ) {
      if (filled === CHUNK_SIZE) {
        yield seal(key, chunkNonce(index++, false), pending);
        filled = 0;
      }
      const taken = Math.min(CHUNK_SIZE - filled, piece.length - offset);
      pending.set(piece.subarray(offset, offset + taken), filled);
      filled += taken;
      offset += taken;
    }
  }
  yield seal(key, chunkNonce(index, true), pending.subarray(0, filled));
}

async function* encrypted(head: Buffer, fileKey: Uint8Array, source: AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Uint8Array> {
  yield head;
  yield* payload(fileKey, source);
}

/**
 * The age file of `source`, encrypted to every recipient (32-byte X25519 public keys, see
 * parseRecipient), as a stream of pieces: the header, the payload nonce, then each encrypted
 * chunk. Bad recipients are refused here, before anything is read or yielded; a source that
 * fails makes the stream fail, and what was yielded is then no valid age file (no final chunk).
 */
export function ageEncrypt(recipients: Uint8Array[], source: AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Uint8Array> {
  const fileKey = randomBytes(FILE_KEY_LENGTH);
  return encrypted(header(recipients, fileKey), fileKey, source);
}

/** ageEncrypt of bytes already in memory, whole. */
export async function ageEncryptBuffer(recipients: Uint8Array[], bytes: Uint8Array): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const piece of ageEncrypt(recipients, bytes)) pieces.push(piece);
  return Buffer.concat(pieces);
}
