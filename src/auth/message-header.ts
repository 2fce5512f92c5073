import { AppError } from '../errors/app-error.ts';

export const BASE64_PREFIX = 'base64:';
// Standard alphabet, padded to a multiple of four: a character class and a length check, which V8
// runs far faster than the grammar's alternation of groups of four.
const BASE64_CHARACTERS = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]=|==)?$/;
const isStandardBase64 = (text: string) => text.length % 4 === 0 && BASE64_CHARACTERS.test(text);
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface ReceivedMessage {
  /** The exact bytes the wallet signed. */
  bytes: Uint8Array;
  /** Those bytes read as UTF-8, for parsing only; never re-encoded for verification. */
  text: string;
}

/**
 * X-MES carries a header-safe message as is, or any message as `base64:` + standard base64 of
 * its UTF-8 bytes (SIWE messages have newlines, which HTTP headers cannot carry).
 */
export function decodeMessageHeader(value: string): ReceivedMessage {
  let bytes: Uint8Array;
  if (value.startsWith(BASE64_PREFIX)) {
    const encoded = value.slice(BASE64_PREFIX.length);
    if (encoded === '' || !isStandardBase64(encoded)) {
      throw new AppError('AUTH_MESSAGE_MALFORMED', 'X-MES starts with "base64:" but the rest is not standard padded base64');
    }
    bytes = new Uint8Array(Buffer.from(encoded, 'base64'));
  } else {
    // Node hands header values over as latin1, one char per received byte: this restores those bytes.
    bytes = new Uint8Array(Buffer.from(value, 'latin1'));
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new AppError('AUTH_MESSAGE_MALFORMED', 'X-MES is not valid UTF-8');
  }
  return { bytes, text };
}

export function encodeMessageHeader(message: string): string {
  const headerSafe = /^[\x20-\x7e]*$/.test(message) && !message.startsWith(BASE64_PREFIX) && message.trim() === message;
  return headerSafe ? message : BASE64_PREFIX + Buffer.from(message, 'utf8').toString('base64');
}
