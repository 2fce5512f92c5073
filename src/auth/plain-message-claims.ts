import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { hasFraction, type MessageClaims } from './message-claims.ts';

const NEVER = Number.MAX_SAFE_INTEGER;

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

/** A message that is no SIWE message: what the plain-message policy (AUTH_PLAIN_MESSAGES) makes of it. */
export function plainClaims(text: string, config: AuthConfig, now: number): MessageClaims {
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
