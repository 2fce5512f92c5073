import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import {
  AgeError,
  BODY_LINE_LENGTH,
  chunkNonce,
  decodeCanonicalBase64,
  ENCRYPTED_CHUNK_SIZE,
  headerMacKey,
  isBase64Chars,
  open,
  PAYLOAD_NONCE_LENGTH,
  payloadKey,
  TAG_LENGTH,
  unwrapFileKey,
  VERSION_LINE,
  X25519_STANZA_TYPE,
  x25519PrivateKey,
  x25519PublicKey,
  x25519SharedSecret,
  x25519WrapKey,
} from './age-format.ts';
import { ByteReader } from './byte-reader.ts';

export { AgeError, type AgeErrorReason } from './age-format.ts';

/**
 * age v1 decryption with X25519 identities (C2SP age spec), binary files (no armor), streaming:
 * the header is read and checked whole (MAC included) before any plaintext, then each chunk is
 * authenticated before its plaintext is yielded. As with any STREAM decryption, the plaintext
 * yielded before an error is authentic but incomplete: a consumer must treat the whole stream as
 * failed when it throws.
 */

/** The spec sets no bound on a header; ours is only to bound memory on garbage (ours are under 1 KiB). */
const MAX_HEADER_BYTES = 1024 * 1024;
const VERSION_PREFIX = 'age-encryption.org/';
const ARMOR_BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';
/** ABNF `argument = 1*VCHAR`. */
const ARGUMENT = /^[\x21-\x7e]+$/;

interface Stanza {
  args: string[];
  body: Buffer;
}

interface Header {
  stanzas: Stanza[];
  /** The bytes the MAC covers: the header up to and including `---`. */
  macked: Buffer;
  mac: Buffer;
}

interface Identity {
  privateKey: KeyObject;
  recipient: Buffer;
}

const malformed = (what: string) => new AgeError('malformed-header', `the age header is malformed: ${what}`);

/** "Header": the version line, one or more stanzas, the MAC line; parsed by the ABNF, strictly. */
async function readHeader(reader: ByteReader): Promise<Header> {
  const start = (await reader.peek(ARMOR_BEGIN.length)).toString('latin1');
  if (start === ARMOR_BEGIN) throw new AgeError('unsupported', 'armored (PEM) age files are not supported, only binary ones');
  if (!start.startsWith(VERSION_PREFIX)) throw new AgeError('not-age', `not an age file (it does not start with ${VERSION_PREFIX})`);

  const lines: Buffer[] = [];
  let budget = MAX_HEADER_BYTES;
  const nextLine = async (): Promise<string> => {
    const line = await reader.readLine(budget);
    if (line === 'end') throw new AgeError('truncated', 'the file ends inside its age header (truncated)');
    if (line === 'too-long') throw malformed(`it is longer than ${MAX_HEADER_BYTES} bytes`);
    budget -= line.length + 1;
    lines.push(line, Buffer.from('\n'));
    return line.toString('latin1');
  };

  const version = await nextLine();
  if (version === `${VERSION_LINE}\r`) throw malformed('its lines end in CR LF, not LF (was it converted as text?)');
  if (version !== VERSION_LINE) throw new AgeError('unsupported', `unsupported age format version (only ${VERSION_LINE} is)`);
  const stanzas: Stanza[] = [];
  for (;;) {
    const line = await nextLine();
    if (line.startsWith('-> ')) {
      stanzas.push(await readStanza(line, nextLine));
      continue;
    }
    // "Header MAC": the MAC covers the header up to and including `---`, not the space after it.
    const match = /^--- ([A-Za-z0-9+/]{43})$/.exec(line);
    if (match === null) throw malformed('a line is neither a recipient stanza ("-> …") nor the MAC ("--- " and 43 base64 characters)');
    const mac = decodeCanonicalBase64(match[1]!);
    if (mac === undefined) throw malformed('the MAC is not canonical base64');
    if (stanzas.length === 0) throw malformed('it has no recipient stanza');
    lines.pop();
    lines[lines.length - 1] = Buffer.from('---');
    return { stanzas, macked: Buffer.concat(lines), mac };
  }
}

/** "Recipient stanza": `-> ` and arguments, then a base64 body wrapped at 64 columns ending in a shorter line. */
async function readStanza(argLine: string, nextLine: () => Promise<string>): Promise<Stanza> {
  const args = argLine.slice(3).split(' ');
  if (!args.every((arg) => ARGUMENT.test(arg))) throw malformed('a stanza has an empty argument or one with other than visible ASCII');
  let body = '';
  for (;;) {
    const line = await nextLine();
    if (line.length > BODY_LINE_LENGTH || !isBase64Chars(line)) {
      throw malformed('a stanza body line is longer than 64 columns or not base64 (is its last, shorter line missing?)');
    }
    body += line;
    if (line.length < BODY_LINE_LENGTH) break;
  }
  const decoded = decodeCanonicalBase64(body);
  if (decoded === undefined) throw malformed('a stanza body is not canonical base64');
  return { args, body: decoded };
}

/**
 * "X25519 recipient stanza": the file key, from the first stanza an identity unwraps. Stanzas of
 * other types are ignored, as the spec requires; X25519 ones are checked, all of them, before any
 * is tried, and a malformed one refuses the file.
 */
function unwrap(identities: Identity[], stanzas: Stanza[]): Buffer {
  // "An scrypt stanza, if present, MUST be the only stanza in the header."
  if (stanzas.length > 1 && stanzas.some((stanza) => stanza.args[0] === 'scrypt')) {
    throw malformed('an scrypt stanza must be the only stanza of its header');
  }
  const x25519 = stanzas
    .filter((stanza) => stanza.args[0] === X25519_STANZA_TYPE)
    .map(({ args, body }) => {
      if (args.length !== 2) throw malformed(`an X25519 stanza has ${args.length} arguments, not 2`);
      const share = decodeCanonicalBase64(args[1]!);
      if (share?.length !== 32) throw malformed('an X25519 stanza share is not the canonical base64 of 32 bytes');
      // Checked before decrypting, "to mitigate partitioning oracle attacks".
      if (body.length !== 32) throw malformed(`an X25519 stanza body is ${body.length} bytes, not 32`);
      return { share, body };
    });
  for (const identity of identities) {
    for (const { share, body } of x25519) {
      const shared = x25519SharedSecret(identity.privateKey, share);
      if (shared === undefined) throw malformed('an X25519 share is a low-order point (its shared secret would be all zero)');
      const fileKey = unwrapFileKey(x25519WrapKey(shared, share, identity.recipient), body);
      if (fileKey !== undefined) return fileKey;
    }
  }
  const others = [...new Set(stanzas.map((stanza) => stanza.args[0]).filter((type) => type !== X25519_STANZA_TYPE))];
  const note = x25519.length === 0 ? ` (it has no X25519 recipients${others.length > 0 ? `, only ${others.join(', ')}` : ''})` : '';
  throw new AgeError('no-match', `no identity matches any recipient of this file${note}`);
}

function checkMac(header: Header, fileKey: Uint8Array): void {
  const expected = createHmac('sha256', headerMacKey(fileKey)).update(header.macked).digest();
  if (!timingSafeEqual(expected, header.mac)) {
    throw new AgeError('header-mac', "the header's MAC does not match (the header was altered or the file key is wrong)");
  }
}

const chunkFailed = (index: number) => new AgeError('chunk-auth', `chunk ${index} failed authentication (altered or truncated data)`);
const truncated = () => new AgeError('truncated', 'the file ends before its last chunk (truncated)');

/**
 * "Payload": the nonce, then STREAM chunks of 64 KiB + tag, the last flagged and never empty
 * unless it is the only one, nothing after it. Only a full-size chunk can be either non-final or
 * final, so only it is tried both ways, which tells truncation at a chunk boundary and trailing
 * data from tampering.
 */
async function* payload(reader: ByteReader, fileKey: Uint8Array): AsyncIterable<Buffer> {
  const nonce = await reader.read(PAYLOAD_NONCE_LENGTH);
  if (nonce.length < PAYLOAD_NONCE_LENGTH) throw new AgeError('truncated', 'the file ends before its payload nonce (truncated)');
  const key = payloadKey(fileKey, nonce);
  for (let index = 0; ; index++) {
    const sealed = await reader.read(ENCRYPTED_CHUNK_SIZE);
    if (sealed.length === 0) throw truncated();
    if (sealed.length < ENCRYPTED_CHUNK_SIZE) {
      // A short chunk ends the source, so it must be the final one.
      if (sealed.length < TAG_LENGTH) throw new AgeError('truncated', `the file ends inside chunk ${index} (truncated)`);
      const plaintext = open(key, chunkNonce(index, true), sealed);
      if (plaintext === undefined) throw chunkFailed(index);
      if (plaintext.length === 0 && index > 0) {
        throw new AgeError('empty-last-chunk', `chunk ${index} is an empty final chunk, which only an empty file may have`);
      }
      if (plaintext.length > 0) yield plaintext;
      return;
    }
    const more = !(await reader.atEnd());
    const plaintext = open(key, chunkNonce(index, !more), sealed);
    if (plaintext !== undefined) {
      yield plaintext;
      if (more) continue;
      return;
    }
    // Authentic, but not where it stands: the plaintext is released, as the chunks before it
    // were, and then the file refused (the age testkit expects exactly this plaintext).
    const flipped = open(key, chunkNonce(index, more), sealed);
    if (flipped === undefined) throw chunkFailed(index);
    yield flipped;
    if (more) throw new AgeError('trailing-data', `the file has data after its final chunk (chunk ${index})`);
    throw truncated();
  }
}

async function* decrypted(identities: Identity[], source: AsyncIterable<unknown>): AsyncIterable<Uint8Array> {
  const reader = new ByteReader(source);
  try {
    const header = await readHeader(reader);
    const fileKey = unwrap(identities, header.stanzas);
    checkMac(header, fileKey);
    yield* payload(reader, fileKey);
  } finally {
    await reader.close();
  }
}

async function* single(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/**
 * The plaintext of an age file, decrypted with any of `identities` (32-byte X25519 secrets, see
 * parseIdentityFile), as a stream of pieces of up to 64 KiB. Fails with an AgeError that says
 * what is wrong; bad identities are refused here, before anything is read.
 */
export function ageDecrypt(identities: Uint8Array[], source: AsyncIterable<Uint8Array> | Uint8Array): AsyncIterable<Uint8Array> {
  if (identities.length === 0) throw new AgeError('bad-key', 'decrypting needs at least one identity');
  const keys = identities.map((identity) => {
    const privateKey = x25519PrivateKey(identity);
    return { privateKey, recipient: x25519PublicKey(privateKey) };
  });
  return decrypted(keys, source instanceof Uint8Array ? single(source) : source);
}

/** ageDecrypt of a file already in memory, whole. */
export async function ageDecryptBuffer(identities: Uint8Array[], bytes: Uint8Array): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for await (const piece of ageDecrypt(identities, bytes)) pieces.push(piece);
  return Buffer.concat(pieces);
}
