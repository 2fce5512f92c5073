import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { looksLikeSiweMessage, parseSiweMessage, type SiweMessage, SiweParseError, timesOf } from './siwe/siwe-message.ts';
import { checkSiweRules } from './siwe-rules.ts';

/** What a message, once accepted, vouches for. Times are epoch ms. */
export interface MessageClaims {
  kind: 'siwe' | 'plain';
  /** The chain a SIWE message names; a plain message names none. */
  chainId: number | undefined;
  /** Server nonce the message must have been issued, when the policy asks for one. */
  nonce: string | undefined;
  /**
   * The latest instant at which the message may have been signed, by what it says (SIWE Issued At,
   * a plain message's timestamp): a time in whole seconds may mean any moment of that second, so
   * it counts as its end. A sign-out everywhere ends the messages signed before it. 0: it does not say.
   */
  signedBy: number;
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
  checkSiweRules(message, {
    domains: config.domains,
    schemes: config.domainSchemes,
    address: walletAddress,
    chainIds: config.chainIds,
    time: now,
    skewMs: skew,
  });
  // Service policy on top of EIP-4361: no message from the future, none that outlives AUTH_MAX_AGE.
  // A signed message is a bearer credential: its own Expiration Time may shorten its life, never
  // lengthen it beyond the operator's bound (one that says 2100 would otherwise serve for 75 years).
  const times = timesOf(message);
  const issuedAt = times.issuedAt;
  if (issuedAt > now + skew) {
    throw new AppError('AUTH_MESSAGE_NOT_YET_VALID', 'The message was issued in the future; check the client clock');
  }
  const maxAgeEnd = issuedAt + config.maxAgeSeconds * 1000 + skew;
  if (maxAgeEnd <= now) {
    throw new AppError(
      'AUTH_MESSAGE_EXPIRED',
      `The message was issued at ${message.issuedAt}, more than AUTH_MAX_AGE (${config.maxAgeSeconds} seconds) ago; sign a new one`,
    );
  }
  // checkSiweRules refused an Expiration Time already past.
  const expirationEnd = times.expirationTime === undefined ? Number.POSITIVE_INFINITY : times.expirationTime + skew;
  const signedBy = issuedAt + (hasFraction(message.issuedAt) ? 0 : 999);
  return { kind: 'siwe', chainId: message.chainId, nonce: message.nonce, signedBy, validUntil: Math.min(maxAgeEnd, expirationEnd) };
}

const ISO_8601 = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})/i;
const UNIX_TIME = /(?<![\d.])(\d{10}|\d{13})(?![\d.])/;

/** The first ISO-8601 or Unix (seconds or ms) timestamp in a line: epoch ms, and whether it gave milliseconds. */
export function findTimestamp(line: string): { at: number; toTheMillisecond: boolean } | undefined {
  const iso = ISO_8601.exec(line);
  if (iso) {
    const ms = Date.parse(iso[0]);
    if (!Number.isNaN(ms)) return { at: ms, toTheMillisecond: hasFraction(iso[0]) };
  }
  const unix = UNIX_TIME.exec(line);
  if (unix)
    return unix[1]!.length === 13
      ? { at: Number(unix[1]), toTheMillisecond: true }
      : { at: Number(unix[1]) * 1000, toTheMillisecond: false };
  return undefined;
}

/** Whether an RFC 3339 / ISO-8601 time gives fractions of a second. */
const hasFraction = (time: string): boolean => /:\d{2}\.\d/.test(time);

function readPlainClaims(text: string, config: AuthConfig, now: number): MessageClaims {
  switch (config.plainMessages) {
    case 'off':
      throw new AppError('AUTH_MESSAGE_REFUSED', 'X-MES must be a Sign-In with Ethereum (EIP-4361) message');
    case 'any':
      // A static credential by the operator's choice: no time of its own, so AUTH_MAX_AGE cannot bound it.
      return { kind: 'plain', chainId: undefined, nonce: undefined, signedBy: 0, validUntil: NEVER };
    case 'timestamped': {
      if (/[\r\n]/.test(text)) {
        throw new AppError('AUTH_MESSAGE_REFUSED', 'A plain X-MES must be a single line holding a timestamp');
      }
      const signedAt = findTimestamp(text);
      if (signedAt === undefined) {
        throw new AppError('AUTH_MESSAGE_REFUSED', 'A plain X-MES must hold an ISO-8601 or Unix timestamp');
      }
      const skew = config.clockSkewSeconds * 1000;
      if (signedAt.at > now + skew) {
        throw new AppError('AUTH_MESSAGE_NOT_YET_VALID', 'The message timestamp is in the future; check the client clock');
      }
      const validUntil = signedAt.at + config.maxAgeSeconds * 1000 + skew;
      if (validUntil <= now) {
        throw new AppError(
          'AUTH_MESSAGE_EXPIRED',
          `The message timestamp is more than ${config.maxAgeSeconds} seconds old; sign a new one`,
        );
      }
      return {
        kind: 'plain',
        chainId: undefined,
        nonce: undefined,
        signedBy: signedAt.at + (signedAt.toTheMillisecond ? 0 : 999),
        validUntil,
      };
    }
  }
}
