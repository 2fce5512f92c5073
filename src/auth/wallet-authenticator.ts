import { createHash } from 'node:crypto';
import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import type { MetadataStore } from '../store/types.ts';
import { AuthState } from './auth-state.ts';
import { BoundedCache } from './bounded-cache.ts';
import type { ContractWalletVerifier } from './contract-wallet-verifier.ts';
import { readMessageClaims } from './message-claims.ts';
import { decodeMessageHeader, type ReceivedMessage } from './message-header.ts';
import { principalOf, type Principal } from './principal.ts';
import type { AddressRecoverer } from './signature/address-recoverer.ts';
import { isHexSignature } from './signature/parse-signature.ts';
import { recoverPersonalSigner } from './signature/recover-personal-signer.ts';
import { toEip55 } from './siwe/siwe-message.ts';

/** The authentication headers as received; undefined when not sent. */
export interface WalletHeaders {
  wal: string | undefined;
  sig: string | undefined;
  mes: string | undefined;
  walletAddress: string | undefined;
}

export interface Authentication {
  principal: Principal;
  /** EIP-55 checksum form. */
  walletAddress: string;
  /** Identifies the signed message of this wallet, for revocation. */
  messageHash: string;
  validUntil: number;
}

interface VerifiedMessage {
  messageHash: string;
  validUntil: number;
}

export const WALLET_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface WalletAuthenticatorDeps {
  config: AuthConfig;
  store: MetadataStore;
  recoverer: AddressRecoverer;
  contractWallets?: ContractWalletVerifier | undefined;
  now?: () => number;
}

/**
 * Turns the X-WAL / X-SIG / X-MES headers into a principal. Proof of key (signature and message
 * rules) is cached per exact credential until the message expires; revocation and the admin's
 * state are looked up on every request through AuthState.
 */
export class WalletAuthenticator {
  readonly signatures: BoundedCache<VerifiedMessage>;
  private readonly state: AuthState;
  private readonly now: () => number;

  constructor(private readonly deps: WalletAuthenticatorDeps) {
    this.signatures = new BoundedCache(deps.config.signatureCacheSize);
    this.state = new AuthState(deps.store, deps.config.stateRefreshSeconds * 1000, deps.config.signatureCacheSize);
    this.now = deps.now ?? Date.now;
  }

  async authenticate(headers: WalletHeaders): Promise<Authentication> {
    const missing = (['X-WAL', 'X-SIG', 'X-MES'] as const).filter(
      (name, i) => [headers.wal, headers.sig, headers.mes][i] === undefined,
    );
    if (missing.length > 0) {
      throw new AppError('AUTH_HEADERS_MISSING', `Authentication required: header ${missing.join(', ')} missing`);
    }
    const wal = headers.wal!;
    if (!WALLET_ADDRESS.test(wal)) {
      throw new AppError('AUTH_ADDRESS_MALFORMED', 'X-WAL must be 0x followed by 40 hexadecimal digits');
    }
    if (headers.walletAddress !== undefined && headers.walletAddress.toLowerCase() !== wal.toLowerCase()) {
      throw new AppError('AUTH_ADDRESS_MISMATCH', 'X-Wallet-Address, when sent, must be the same address as X-WAL');
    }
    const message = decodeMessageHeader(headers.mes!);
    const now = this.now();
    const key = credentialKey(wal, headers.sig!, message.bytes);
    let verified = this.signatures.get(key, now);
    if (verified === undefined) {
      verified = await this.verify(wal, headers.sig!, message, now);
      this.signatures.set(key, verified, verified.validUntil);
    }
    if (await this.state.isRevoked(verified.messageHash, now)) {
      throw new AppError('AUTH_MESSAGE_REVOKED', 'This signed message was logged out; sign a new one');
    }
    const record = await this.state.principalRecord(wal, now);
    if (record === undefined) {
      throw new AppError('AUTH_UNKNOWN_WALLET', 'The signature is valid but no admin has this wallet');
    }
    if (record.admin.status !== 'ACTIVE') {
      throw new AppError('ADMIN_SUSPENDED', `The admin of this wallet is ${record.admin.status}`);
    }
    return {
      principal: principalOf(record),
      walletAddress: toEip55(wal),
      messageHash: verified.messageHash,
      validUntil: verified.validUntil,
    };
  }

  /** Revokes the presented message for every instance sharing the store. */
  async logout(authentication: Authentication): Promise<void> {
    await this.state.revoke(authentication.messageHash, authentication.validUntil);
  }

  private async verify(wal: string, signature: string, message: ReceivedMessage, now: number): Promise<VerifiedMessage> {
    const claims = readMessageClaims(message.text, wal, this.deps.config, now);
    await this.checkSignature(wal, signature, message.bytes);
    const messageHash = messageHashOf(wal, message.bytes);
    if (claims.kind === 'siwe' && this.deps.config.requireServerNonce) {
      const claim = await this.deps.store.claimNonce(claims.nonce!, messageHash, now, claims.validUntil);
      if (claim === 'unknown' || claim === 'claimed-by-another-message') {
        throw new AppError('AUTH_NONCE_INVALID', claim === 'unknown'
          ? 'The message nonce was not issued by this service or has expired; get one from GET /api/auth/nonce'
          : 'The message nonce was already used by another message; get a new one from GET /api/auth/nonce');
      }
    }
    return { messageHash, validUntil: claims.validUntil };
  }

  private async checkSignature(wal: string, signature: string, bytes: Uint8Array): Promise<void> {
    const contractWallets = this.deps.contractWallets;
    // Contract wallets sign with signatures of any length; only they may skip the 65-byte form.
    if (contractWallets && isHexSignature(signature) && signature.length !== 132) {
      if (await contractWallets.verify(wal, bytes, signature)) return;
      throw invalidSignature();
    }
    if (recoverPersonalSigner(this.deps.recoverer, signature, bytes) === wal.toLowerCase()) return;
    if (contractWallets && (await contractWallets.verify(wal, bytes, signature))) return;
    throw invalidSignature();
  }
}

function invalidSignature(): AppError {
  return new AppError('AUTH_SIGNATURE_INVALID', 'X-SIG is not a signature of X-MES by the wallet X-WAL');
}

function credentialKey(wal: string, signature: string, bytes: Uint8Array): string {
  return createHash('sha256').update(wal.toLowerCase()).update('\0').update(signature.toLowerCase()).update('\0').update(bytes).digest('base64');
}

export function messageHashOf(wal: string, bytes: Uint8Array): string {
  return createHash('sha256').update(wal.toLowerCase()).update('\0').update(bytes).digest('hex');
}
