import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { looksLikeSiweMessage, parseRfc3339, parseSiweMessage, type SiweMessage, SiweParseError } from './siwe/siwe-message.ts';
import { checkSiweRules } from './siwe-rules.ts';

/** What a message, once accepted, vouches for. Times are epoch ms. */
export interface MessageClaims {
  kind: 'siwe' | 'plain';
  /** Server nonce the message must have been issued, when the policy asks for one. */
  nonce: string | undefined;
  /** Last instant (exclusive, skew included) at which the message still authenticates. */
  validUntil: number;
}

const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * Checks what a message says (not who signed it): SIWE by EIP-4361 and our domain and time
 * rules, other messages by the plain-message policy.
 */
export function readMessageClaims(text: string, walletAddress: string, config: AuthConfig, now: number): MessageClaims {
  return looksLikeSiweMessage(text) ? readSiweClaims(text, walletAddress, config, now) : readPlainClaims(text, config, now);
}

function readSiweClaims(text: string, walletAddress: string, config: AuthConfig, now: number): MessageClaims {
  let message: SiweMessage;
  try {
    message = parseSiweMessage(text);
  } catch (error) {
    const reason = error instanceof SiweParseError ? error.message : 'it does not follow the EIP-4361 grammar';
    throw new AppError('AUTH_MESSAGE_MALFORMED', `X-MES is not a valid Sign-In with Ethereum message: ${reason}`);
  }
  const skew = config.clockSkewSeconds * 1000;
  checkSiweRules(message, { domains: config.domains, schemes: config.domainSchemes, address: walletAddress, time: now, skewMs: skew });
  // Service policy on top of EIP-4361: no message from the future, none that lives forever.
  const issuedAt = parseRfc3339(message.issuedAt)!;
  if (issuedAt > now + skew) {
    throw new AppError('AUTH_MESSAGE_NOT_YET_VALID', 'The message was issued in the future; check the client clock');
  }
  if (message.expirationTime !== undefined) {
    return { kind: 'siwe', nonce: message.nonce, validUntil: parseRfc3339(message.expirationTime)! + skew };
  }
  const validUntil = issuedAt + config.maxAgeSeconds * 1000 + skew;
  if (validUntil <= now) {
    throw new AppError(
      'AUTH_MESSAGE_EXPIRED',
      `The message was issued more than ${config.maxAgeSeconds} seconds ago and has no expiration; sign a new one`,
    );
  }
  return { kind: 'siwe', nonce: message.nonce, validUntil };
}

const ISO_8601 = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})/i;
const UNIX_TIME = /(?<![\d.])(\d{10}|\d{13})(?![\d.])/;

/** Epoch ms of the first ISO-8601 or Unix (seconds or ms) timestamp in a line. */
export function findTimestamp(line: string): number | undefined {
  const iso = ISO_8601.exec(line);
  if (iso) {
    const ms = Date.parse(iso[0]);
    if (!Number.isNaN(ms)) return ms;
  }
  const unix = UNIX_TIME.exec(line);
  if (unix) return unix[1]!.length === 13 ? Number(unix[1]) : Number(unix[1]) * 1000;
  return undefined;
}

function readPlainClaims(text: string, config: AuthConfig, now: number): MessageClaims {
  switch (config.plainMessages) {
    case 'off':
      throw new AppError('AUTH_MESSAGE_REFUSED', 'X-MES must be a Sign-In with Ethereum (EIP-4361) message');
    case 'any':
      return { kind: 'plain', nonce: undefined, validUntil: NEVER };
    case 'timestamped': {
      if (/[\r\n]/.test(text)) {
        throw new AppError('AUTH_MESSAGE_REFUSED', 'A plain X-MES must be a single line holding a timestamp');
      }
      const signedAt = findTimestamp(text);
      if (signedAt === undefined) {
        throw new AppError('AUTH_MESSAGE_REFUSED', 'A plain X-MES must hold an ISO-8601 or Unix timestamp');
      }
      const skew = config.clockSkewSeconds * 1000;
      if (signedAt > now + skew) {
        throw new AppError('AUTH_MESSAGE_NOT_YET_VALID', 'The message timestamp is in the future; check the client clock');
      }
      const validUntil = signedAt + config.maxAgeSeconds * 1000 + skew;
      if (validUntil <= now) {
        throw new AppError(
          'AUTH_MESSAGE_EXPIRED',
          `The message timestamp is more than ${config.maxAgeSeconds} seconds old; sign a new one`,
        );
      }
      return { kind: 'plain', nonce: undefined, validUntil };
    }
  }
}
