import { createHash, randomBytes } from 'node:crypto';
import type { ContractWalletVerifier } from '../auth/contract-wallet-verifier.ts';
import type { AddressRecoverer } from '../auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../auth/signature/parse-signature.ts';
import { recoverPersonalSigner } from '../auth/signature/recover-personal-signer.ts';
import { formatSiweMessage, toEip55 } from '../auth/siwe/siwe-message.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { Admin } from '../model/admins.ts';
import type { WalletChallenge, WalletChallengeRecords } from '../model/invitations.ts';

/** How long a new wallet has to sign the challenge. */
const CHALLENGE_SECONDS = 10 * 60;

export interface WalletProofSettings {
  /** The domain the message names (the first of AUTH_DOMAINS) and the service's URL. */
  domain: string;
  uri: string;
  /** The chain a message names unless asked for another: the first of AUTH_CHAIN_IDS, else 1. */
  defaultChainId: number;
  /** AUTH_CHAIN_IDS; undefined: any. */
  chainIds: readonly number[] | undefined;
}

/**
 * The proof that whoever adds a wallet to an admin holds that wallet: the service writes the exact
 * EIP-4361 message (saying what signing it grants), keeps it by its SHA-256, and accepts it back
 * once, before it expires, signed by that wallet — by its key (personal_sign), or for a contract
 * wallet by EIP-1271 on the message's chain when an RPC node serves it.
 */
export class WalletProofs {
  constructor(
    private readonly records: WalletChallengeRecords,
    private readonly recoverer: AddressRecoverer,
    private readonly contractWallets: ContractWalletVerifier | undefined,
    private readonly settings: WalletProofSettings,
    private readonly now: () => number = Date.now,
  ) {}

  async challenge(admin: Admin, wallet: string, chainId: number | undefined): Promise<{ message: string; expiresAt: number }> {
    const chain = chainId ?? this.settings.defaultChainId;
    if (this.settings.chainIds !== undefined && !this.settings.chainIds.includes(chain)) {
      throw new AppError('VALIDATION_FAILED', `chainId ${chain} is not one this service accepts (${this.settings.chainIds.join(', ')})`);
    }
    const at = this.now();
    const expiresAt = at + CHALLENGE_SECONDS * 1000;
    const message = formatSiweMessage({
      domain: this.settings.domain,
      address: toEip55(wallet.toLowerCase()),
      // A statement is one line of plain ASCII (EIP-4361): the admin by id, not by its display name.
      statement:
        `Add this wallet to the admin ${admin.id} of tenant ${admin.tenantId}. ` +
        'Once added, it signs in as that admin, with everything that admin may do. Sign only if you asked for this.',
      uri: this.settings.uri,
      version: '1',
      chainId: chain,
      nonce: randomBytes(12).toString('hex'),
      issuedAt: new Date(at).toISOString(),
      expirationTime: new Date(expiresAt).toISOString(),
      resources: [`urn:wallet-admin:add-wallet:${admin.id}`],
    });
    await this.records.saveWalletChallenge({ messageHash: hashOf(message), adminId: admin.id, wallet, chainId: chain, expiresAt });
    return { message, expiresAt };
  }

  /**
   * The wallet the signed challenge adds to `adminId`, used up; WALLET_PROOF_INVALID when the
   * message is not a challenge this service issued for that admin and still open, or its wallet
   * did not sign it.
   */
  async prove(adminId: string, message: string, signature: string): Promise<string> {
    const hash = hashOf(message);
    const challenge = await this.records.useWalletChallenge(hash, this.now());
    if (challenge === undefined || challenge.adminId !== adminId) {
      throw new AppError(
        'WALLET_PROOF_INVALID',
        'message is not an open challenge for this admin: ask POST …/wallets/challenge for one, sign it exactly as given, and send it back within 10 minutes, once',
      );
    }
    if (!(await this.signedBy(challenge, message, signature))) {
      throw new AppError('WALLET_PROOF_INVALID', `signature is not a signature of message by the wallet ${toEip55(challenge.wallet)}`);
    }
    return challenge.wallet;
  }

  private async signedBy(challenge: WalletChallenge, message: string, signature: string): Promise<boolean> {
    const bytes = new TextEncoder().encode(message);
    try {
      if (recoverPersonalSigner(this.recoverer, parseRecoverableSignature(signature), bytes) === challenge.wallet) return true;
    } catch (error) {
      // A signature that is no 65-byte one may still be a contract wallet's (EIP-1271 allows any bytes).
      if (!isAppError(error)) throw error;
    }
    const contracts = this.contractWallets;
    if (contracts === undefined || !contracts.mayVerifyOn(challenge.chainId)) return false;
    return contracts.verify(challenge.chainId, challenge.wallet, bytes, signature);
  }
}

const hashOf = (message: string): string => createHash('sha256').update(message, 'utf8').digest('hex');
