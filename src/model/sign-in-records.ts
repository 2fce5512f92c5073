import type { AdminRecords, PrincipalLookup } from './admins.ts';

/** What signing in keeps beside the admins: claimed nonces, revoked messages and the service's shared secrets. */

export type NonceClaim = 'claimed' | 'already-claimed-by-this-message' | 'claimed-by-another-message';

export interface NonceRecords {
  /**
   * Binds a nonce (already checked to be one this service issued) to one message, by hash, so that
   * no other message can use it, and keeps that until keepUntil. The first message wins; the same
   * message again is told so.
   */
  claimNonce(nonce: string, messageHash: string, keepUntil: number): Promise<NonceClaim>;
}

export interface RevocationRecords {
  revokeMessage(messageHash: string, expiresAt: number, now: number): Promise<void>;
  /** Revocations made at or after `since` (epoch ms; 0: all) whose messages have not expired at `now`. */
  revocationsSince(since: number, now: number): Promise<{ messageHash: string; expiresAt: number }[]>;
}

export interface NonceAndRevocationRecords extends NonceRecords, RevocationRecords {
  /** Deletes expired nonce claims and revocations; returns how many rows went. */
  purgeExpired(now: number): Promise<number>;
}

/** Keys shared by every instance on one database. */
export interface ServiceSecrets {
  /** The secret named `name`, made by `create` and stored by the first caller that needs it; the same for every later one. */
  serviceSecret(name: string, create: () => string): Promise<string>;
}

/** What authentication reads and writes: the signer's principal, revocations, nonces, and sign-outs. */
export interface AuthRecords
  extends PrincipalLookup,
    RevocationRecords,
    NonceRecords,
    ServiceSecrets,
    Pick<AdminRecords, 'signOutEverywhere'> {}
