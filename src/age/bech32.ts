/**
 * Bech32 (BIP 173, not the bech32m of BIP 350), as age uses it for its keys: the C2SP age spec
 * ("Conventions") takes BIP 173 "but without length limits on the data part", and a string is all
 * upper-case or all lower-case with the checksum always computed over the lower-case form. age
 * writes recipients lower-case (`age1…`) and identities upper-case (`AGE-SECRET-KEY-1…`).
 *
 * Errors never repeat the input: the string may be a secret key.
 */

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
/** BIP 173's checksum constant (bech32m would be 0x2bc830a3). */
const BECH32_CONSTANT = 1;
const CHECKSUM_LENGTH = 6;

/** The BIP 173 checksum polynomial over 5-bit values. */
function polymod(values: number[]): number {
  let checksum = 1;
  for (const value of values) {
    const top = checksum >>> 25;
    checksum = ((checksum & 0x1ffffff) << 5) ^ value;
    for (let bit = 0; bit < 5; bit++) {
      if ((top >>> bit) & 1) checksum ^= GENERATOR[bit]!;
    }
  }
  return checksum >>> 0;
}

/** The human-readable part as the checksum sees it: high bits, a zero, low bits (BIP 173). */
function expandHrp(hrp: string): number[] {
  const codes = [...hrp].map((char) => char.charCodeAt(0));
  return [...codes.map((code) => code >>> 5), 0, ...codes.map((code) => code & 31)];
}

function checksumOf(lowerHrp: string, words: number[]): number[] {
  const mod = polymod([...expandHrp(lowerHrp), ...words, 0, 0, 0, 0, 0, 0]) ^ BECH32_CONSTANT;
  return Array.from({ length: CHECKSUM_LENGTH }, (_, index) => (mod >>> (5 * (5 - index))) & 31);
}

/** 8-bit bytes to 5-bit words, the last one zero-padded. */
function toWords(bytes: Uint8Array): number[] {
  const words: number[] = [];
  let accumulator = 0;
  let bits = 0;
  for (const byte of bytes) {
    accumulator = ((accumulator << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((accumulator >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((accumulator << (5 - bits)) & 31);
  return words;
}

/** 5-bit words back to bytes; the padding must be under 5 bits and all zero (BIP 173). */
function fromWords(words: number[]): Uint8Array {
  const bytes: number[] = [];
  let accumulator = 0;
  let bits = 0;
  for (const word of words) {
    accumulator = ((accumulator << 5) | word) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((accumulator >>> bits) & 0xff);
    }
  }
  if (bits >= 5 || (accumulator & ((1 << bits) - 1)) !== 0) throw new Error('bech32 data has invalid padding');
  return Uint8Array.from(bytes);
}

function isHrpChar(code: number): boolean {
  return code >= 33 && code <= 126;
}

/**
 * Encodes `data` under `hrp`. The string comes out upper-case when `hrp` is upper-case (age's
 * identities) and lower-case otherwise; the checksum is over the lower-case form either way.
 */
export function bech32Encode(hrp: string, data: Uint8Array): string {
  if (hrp.length === 0 || ![...hrp].every((char) => isHrpChar(char.charCodeAt(0)))) {
    throw new Error('a bech32 human-readable part must be 1 or more printable ASCII characters');
  }
  const lowerHrp = hrp.toLowerCase();
  if (hrp !== lowerHrp && hrp !== hrp.toUpperCase()) throw new Error('a bech32 human-readable part cannot mix upper and lower case');
  const words = toWords(data);
  const encoded = `${lowerHrp}1${[...words, ...checksumOf(lowerHrp, words)].map((word) => CHARSET[word]).join('')}`;
  return hrp === lowerHrp ? encoded : encoded.toUpperCase();
}

/**
 * Decodes a bech32 string. `hrp` keeps the case it was written in, so that callers can insist on
 * the case age writes (age itself does: `age1…` recipients, `AGE-SECRET-KEY-1…` identities).
 */
export function bech32Decode(text: string): { hrp: string; data: Uint8Array } {
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) throw new Error('bech32 strings cannot mix upper and lower case');
  if (![...text].every((char) => isHrpChar(char.charCodeAt(0)))) throw new Error('bech32 strings are printable ASCII only');
  const separator = lower.lastIndexOf('1');
  if (separator < 1) throw new Error('bech32 string has no human-readable part and separator "1"');
  if (lower.length - separator - 1 < CHECKSUM_LENGTH) throw new Error('bech32 string is too short for its checksum');
  const lowerHrp = lower.slice(0, separator);
  const words: number[] = [];
  for (const char of lower.slice(separator + 1)) {
    const word = CHARSET.indexOf(char);
    if (word < 0) throw new Error('bech32 data has a character outside its alphabet');
    words.push(word);
  }
  if (polymod([...expandHrp(lowerHrp), ...words]) !== BECH32_CONSTANT) throw new Error('bech32 checksum does not match (a typo?)');
  return { hrp: text.slice(0, separator), data: fromWords(words.slice(0, -CHECKSUM_LENGTH)) };
}
