import { randomBytes } from 'node:crypto';
import { AgeError, x25519PrivateKey, x25519PublicKey, x25519SharedSecret } from './age-format.ts';
import { bech32Decode, bech32Encode } from './bech32.ts';

/**
 * age X25519 keys as text ("The X25519 recipient type"): a recipient is the public key in Bech32
 * under `age` (`age1…`), an identity the secret key under `AGE-SECRET-KEY-` (`AGE-SECRET-KEY-1…`).
 * Recipients may be quoted in errors (they are public); identities and anything that might be one
 * never are.
 */

const RECIPIENT_HRP = 'age';
const IDENTITY_HRP = 'AGE-SECRET-KEY-';
const KEY_LENGTH = 32;

/** The key of an X25519 recipient, or why `text` is not one, in words. */
function decodeRecipient(text: string): Uint8Array | string {
  if (/^age-secret-key-/i.test(text)) return 'it is a secret key (an identity), not a recipient: give `age-keygen -y` of it instead';
  let decoded: { hrp: string; data: Uint8Array };
  try {
    decoded = bech32Decode(text);
  } catch (error) {
    return (error as Error).message;
  }
  const { hrp, data } = decoded;
  if (hrp === RECIPIENT_HRP.toUpperCase()) return 'age writes recipients in lower case';
  if (hrp.startsWith('age1')) return `${hrp}1… recipients (post-quantum or plugin) are not supported, only X25519 ones (age1…)`;
  if (hrp !== RECIPIENT_HRP) return 'it does not start with age1';
  if (data.length !== KEY_LENGTH) return `it holds ${data.length} bytes, not a ${KEY_LENGTH}-byte X25519 key`;
  if (isLowOrder(data)) return 'it is a low-order point, which would give an all-zero shared secret';
  return data;
}

/**
 * A point whose X25519 with any (clamped) scalar is zero: clamping makes scalars multiples of 8,
 * which cancel every low-order component, so one random scalar tells.
 */
function isLowOrder(publicKey: Uint8Array): boolean {
  return x25519SharedSecret(x25519PrivateKey(randomBytes(KEY_LENGTH)), publicKey) === undefined;
}

/** The 32-byte X25519 public key of an `age1…` recipient. */
export function parseRecipient(text: string): Uint8Array {
  const trimmed = text.trim();
  const recipient = decodeRecipient(trimmed);
  if (typeof recipient !== 'string') return recipient;
  // A recipient is public and worth quoting; anything else is not, in case it is a secret.
  const quoted = /^age1[a-z0-9]*$/.test(trimmed) ? ` ${trimmed}` : '';
  throw new AgeError('bad-key', `the recipient${quoted} is not an age X25519 recipient (age1…): ${recipient}`);
}

/**
 * Recipients separated by commas or white space, as a setting or an `age -R` recipients file
 * holds them: a `#` starts a comment to the end of its line. At least one is required.
 */
export function parseRecipients(list: string): Uint8Array[] {
  const texts = list
    .split(/\r?\n/)
    .map((line) => line.replace(/#.*$/, ''))
    .join(' ')
    .split(/[\s,]+/)
    .filter((text) => text !== '');
  if (texts.length === 0) throw new AgeError('bad-key', 'the list holds no age recipients');
  return texts.map((text, index) => {
    try {
      return parseRecipient(text);
    } catch (error) {
      throw new AgeError('bad-key', `recipient ${index + 1} of the list: ${(error as Error).message}`);
    }
  });
}

/** Why one line is not an X25519 identity, in words that never repeat it. */
function identityProblem(line: string): string {
  if (/^age1/i.test(line)) return 'it is a recipient (public key); the identity file needs the secret key';
  if (/^AGE-SECRET-KEY-PQ-1/i.test(line)) return 'post-quantum identities (AGE-SECRET-KEY-PQ-1…) are not supported';
  if (/^AGE-PLUGIN-/i.test(line)) return 'plugin identities (AGE-PLUGIN-…) are not supported';
  if (/^-----BEGIN /.test(line)) return 'PEM keys (SSH or otherwise) are not supported';
  try {
    const { hrp, data } = bech32Decode(line);
    if (hrp === IDENTITY_HRP.toLowerCase()) return 'age writes identities in upper case';
    if (hrp !== IDENTITY_HRP) return 'it does not start with AGE-SECRET-KEY-1';
    if (data.length !== KEY_LENGTH) return `it holds ${data.length} bytes, not a ${KEY_LENGTH}-byte X25519 key`;
  } catch (error) {
    return (error as Error).message;
  }
  return 'unreadable';
}

/** The 32-byte secret of one `AGE-SECRET-KEY-1…` line, or undefined when it is not one. */
function decodeIdentity(line: string): Uint8Array | undefined {
  try {
    const { hrp, data } = bech32Decode(line);
    return hrp === IDENTITY_HRP && data.length === KEY_LENGTH ? data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The X25519 secrets of an age identity file (what `age-keygen` writes): one identity a line,
 * blank lines and `#` comments skipped, every other line an `AGE-SECRET-KEY-1…`; at least one.
 */
export function parseIdentityFile(text: string): Uint8Array[] {
  const identities: Uint8Array[] = [];
  for (const [index, rawLine] of text.split('\n').entries()) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    const identity = decodeIdentity(line);
    if (identity === undefined) {
      throw new AgeError(
        'bad-key',
        `line ${index + 1} of the identity file is not an age X25519 identity (AGE-SECRET-KEY-1…): ${identityProblem(line)}`,
      );
    }
    identities.push(identity);
  }
  if (identities.length === 0) throw new AgeError('bad-key', 'the identity file holds no identities (AGE-SECRET-KEY-1… lines)');
  return identities;
}

/** The `age1…` recipient of a 32-byte X25519 identity, as `age-keygen -y` prints it. */
export function recipientOf(identity: Uint8Array): string {
  return bech32Encode(RECIPIENT_HRP, x25519PublicKey(x25519PrivateKey(identity)));
}

/** A new identity, as `age-keygen` makes one: 32 bytes from the CSPRNG, and its recipient. */
export function generateIdentity(): { identity: string; recipient: string } {
  const secret = randomBytes(KEY_LENGTH);
  return { identity: bech32Encode(IDENTITY_HRP, secret), recipient: recipientOf(secret) };
}
