import { AppError } from '../errors/app-error.ts';
import type { SiweMessage, SiweTimes } from './siwe/siwe-message.ts';

export interface SiweRuleOptions {
  /** Domains the message may name (lowercase). */
  domains: string[];
  /** Per domain, the schemes (lowercase) a message naming it may carry; a message without a scheme is not asked. */
  schemes: ReadonlyMap<string, readonly string[]>;
  /** The wallet that must be named in the message, when known. */
  address?: string;
  /** The instant the message is judged at (epoch ms). */
  time: number;
  skewMs: number;
  /** Chain ids the message may name; any when undefined. */
  chainIds?: readonly number[] | undefined;
  /** A nonce the message must carry, when the caller expects a particular one. */
  nonce?: string;
}

/**
 * The EIP-4361 verification rules on a parsed message: domain (and scheme) binding, address, chain,
 * nonce, and the expiration / not-before window (`times`, as the parser read them) at a given time.
 * Signature and service policy live elsewhere.
 */
export function checkSiweRules(message: SiweMessage, times: SiweTimes, options: SiweRuleOptions): void {
  const domain = message.domain.toLowerCase();
  if (!options.domains.includes(domain)) {
    throw new AppError(
      'AUTH_DOMAIN_MISMATCH',
      `The message signs in to "${message.domain}", which this service is not (expected ${options.domains.join(' or ')})`,
    );
  }
  // The scheme is part of the origin the wallet saw: "javascript://host" or "http://host" for a
  // service served over https is not this service, whatever the domain.
  const schemes = options.schemes.get(domain) ?? [];
  if (message.scheme !== undefined && !schemes.includes(message.scheme.toLowerCase())) {
    throw new AppError(
      'AUTH_DOMAIN_MISMATCH',
      `The message signs in to "${message.scheme}://${message.domain}", but this service's scheme there is ${schemes.map((scheme) => `"${scheme}"`).join(' or ')} (expected that scheme, or none)`,
    );
  }
  if (options.address !== undefined && message.address.toLowerCase() !== options.address.toLowerCase()) {
    throw new AppError('AUTH_ADDRESS_MISMATCH', 'The address in the signed message is not X-WAL');
  }
  if (options.chainIds !== undefined && !options.chainIds.includes(message.chainId)) {
    throw new AppError(
      'AUTH_CHAIN_NOT_ALLOWED',
      `The message names chain ${message.chainId}, which this service does not accept (accepted: ${options.chainIds.join(', ')})`,
    );
  }
  if (options.nonce !== undefined && message.nonce !== options.nonce) {
    throw new AppError('AUTH_NONCE_INVALID', 'The message nonce is not the expected one');
  }
  if (times.notBefore !== undefined && times.notBefore > options.time + options.skewMs) {
    throw new AppError('AUTH_MESSAGE_NOT_YET_VALID', `The message is not valid before ${message.notBefore}`);
  }
  if (times.expirationTime !== undefined && times.expirationTime + options.skewMs <= options.time) {
    throw new AppError('AUTH_MESSAGE_EXPIRED', `The message expired at ${message.expirationTime}`);
  }
}
