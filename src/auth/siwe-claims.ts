import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { hasFraction, type MessageClaims } from './message-claims.ts';
import type { ParsedSiweMessage } from './siwe/siwe-message.ts';
import { checkSiweRules } from './siwe-rules.ts';

/**
 * The resource every wallet proof of releases before typed data named: those proofs were EIP-4361
 * messages that the service wrote and the new wallet signed, and whoever relayed one could sign in
 * with it as that admin until it expired. Such a message is never a sign-in, whatever else it says.
 */
const WALLET_PROOF_RESOURCE = 'urn:wallet-admin:add-wallet:';

/** A parsed SIWE message's claims: EIP-4361's rules (siwe-rules.ts), then the service's time policy. */
export function siweClaims(parsed: ParsedSiweMessage, walletAddress: string, config: AuthConfig, now: number): MessageClaims {
  const { message, times } = parsed;
  if (message.resources?.some((resource) => resource.toLowerCase().startsWith(WALLET_PROOF_RESOURCE))) {
    throw new AppError(
      'AUTH_MESSAGE_REFUSED',
      'X-MES is a wallet proof (it adds a wallet to an admin), which never signs in: sign a Sign-In with Ethereum message of your own',
    );
  }
  const skew = config.clockSkewSeconds * 1000;
  checkSiweRules(message, times, {
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
