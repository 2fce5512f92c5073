import { randomBytes } from 'node:crypto';
import type { ContractWalletVerifier } from '../auth/contract-wallet-verifier.ts';
import type { AddressRecoverer } from '../auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../auth/signature/parse-signature.ts';
import { toEip55 } from '../auth/siwe/eip55.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { Admin } from '../model/admins.ts';
import type { WalletChallenge, WalletChallengeRecords } from '../model/invitations.ts';
import { readWalletProofTypedData, type WalletProofTypedData, walletProofDigest, walletProofTypedData } from './wallet-proof-typed-data.ts';

/** How long a new wallet has to sign the challenge. */
const CHALLENGE_SECONDS = 10 * 60;

export interface WalletProofSettings {
  /** The service's public URL, which every proof names. */
  service: string;
  /** The chain the typed data's domain names unless asked for another: the first of AUTH_CHAIN_IDS, else 1. */
  defaultChainId: number;
  /** AUTH_CHAIN_IDS; undefined: any. */
  chainIds: readonly number[] | undefined;
}

/** A challenge: the typed data the new wallet signs (eth_signTypedData_v4), until expiresAt (epoch ms). */
export interface IssuedChallenge {
  typedData: WalletProofTypedData;
  expiresAt: number;
}

/** The refusal of a proof that is no open challenge of this service for this admin. */
const NOT_A_CHALLENGE =
  'typedData is not an open challenge for this admin: ask POST …/wallets/challenge for one, have the new wallet sign its typedData exactly as given (eth_signTypedData_v4), and send both back within 10 minutes, once';

/**
 * The proof that whoever adds a wallet to an admin holds that wallet: the service writes the exact
 * EIP-712 typed data (wallet-proof-typed-data.ts: saying what signing it grants), keeps it by its
 * digest, and accepts it back once, before it expires, signed by that wallet — by its key, or for a
 * contract wallet by EIP-1271 on the domain's chain when an RPC node serves it. Being typed data, a
 * proof is never a sign-in: whoever relays it (an owner adding a colleague's wallet, a proxy)
 * cannot sign in with it as anyone.
 */
export class WalletProofs {
  constructor(
    private readonly records: WalletChallengeRecords,
    private readonly recoverer: AddressRecoverer,
    private readonly contractWallets: ContractWalletVerifier | undefined,
    private readonly settings: WalletProofSettings,
    private readonly now: () => number = Date.now,
  ) {}

  async challenge(admin: Admin, wallet: string, chainId: number | undefined): Promise<IssuedChallenge> {
    const chain = chainId ?? this.settings.defaultChainId;
    if (this.settings.chainIds !== undefined && !this.settings.chainIds.includes(chain)) {
      throw new AppError('VALIDATION_FAILED', `chainId ${chain} is not one this service accepts (${this.settings.chainIds.join(', ')})`);
    }
    // Whole seconds, as the typed data says it.
    const deadline = Math.floor(this.now() / 1000) + CHALLENGE_SECONDS;
    const typedData = walletProofTypedData(chain, {
      statement:
        `Add this wallet to the admin ${admin.id} of tenant ${admin.tenantId}. ` +
        'Once added, it signs in as that admin, with everything that admin may do. Sign only if you asked for this. ' +
        'This signature adds the wallet; it signs nobody in.',
      service: this.settings.service,
      tenant: admin.tenantId,
      admin: admin.id,
      wallet: toEip55(wallet.toLowerCase()),
      nonce: `0x${randomBytes(32).toString('hex')}`,
      deadline,
    });
    const expiresAt = deadline * 1000;
    await this.records.saveWalletChallenge({ messageHash: keyOf(typedData), adminId: admin.id, wallet, chainId: chain, expiresAt });
    return { typedData, expiresAt };
  }

  /**
   * The wallet the signed challenge adds to `adminId`, used up; WALLET_PROOF_INVALID when the typed
   * data is not a challenge this service issued for that admin and still open, or its wallet did
   * not sign it.
   */
  async prove(adminId: string, typedData: unknown, signature: string): Promise<string> {
    const checked = await this.check(adminId, typedData, signature);
    await useChallenge(this.records, checked.key, this.now());
    return checked.wallet;
  }

  /**
   * The wallet the signed challenge proves for `adminId`, the challenge left open: the caller uses
   * it up (useChallenge) in the transaction that adds the wallet, so that a wallet that could not be
   * added leaves its proof good for a retry. WALLET_PROOF_INVALID as prove().
   */
  async check(adminId: string, typedData: unknown, signature: string): Promise<{ wallet: string; key: string }> {
    const proof = readWalletProofTypedData(typedData);
    if (proof === undefined) throw new AppError('WALLET_PROOF_INVALID', NOT_A_CHALLENGE);
    const digest = walletProofDigest(proof);
    const key = Buffer.from(digest).toString('hex');
    const challenge = await this.records.openWalletChallenge(key, this.now());
    if (challenge === undefined || challenge.adminId !== adminId) throw new AppError('WALLET_PROOF_INVALID', NOT_A_CHALLENGE);
    // Checked before anything is written: a contract wallet's check asks its chain, outside any transaction.
    if (!(await this.signedBy(challenge, digest, signature))) {
      throw new AppError(
        'WALLET_PROOF_INVALID',
        `signature is not the wallet ${toEip55(challenge.wallet)}'s signature (eth_signTypedData_v4) of typedData`,
      );
    }
    return { wallet: challenge.wallet, key };
  }

  /** Uses up a checked challenge (`key`, from check) in `records` (a transaction's), once: WALLET_PROOF_INVALID when used since. */
  use(records: Pick<WalletChallengeRecords, 'useWalletChallenge'>, key: string): Promise<void> {
    return useChallenge(records, key, this.now());
  }

  private async signedBy(challenge: WalletChallenge, digest: Uint8Array, signature: string): Promise<boolean> {
    try {
      if (this.recoverer.recover(digest, parseRecoverableSignature(signature)) === challenge.wallet) return true;
    } catch (error) {
      // A signature that is no 65-byte one may still be a contract wallet's (EIP-1271 allows any bytes).
      if (!isAppError(error)) throw error;
    }
    const contracts = this.contractWallets;
    if (contracts === undefined || !contracts.mayVerifyOn(challenge.chainId)) return false;
    return contracts.verifyDigest(challenge.chainId, challenge.wallet, digest, signature);
  }
}

/** Uses up a checked challenge, once: WALLET_PROOF_INVALID when another request used it (or it expired) since. */
async function useChallenge(records: Pick<WalletChallengeRecords, 'useWalletChallenge'>, key: string, at: number): Promise<void> {
  if ((await records.useWalletChallenge(key, at)) === undefined) throw new AppError('WALLET_PROOF_INVALID', NOT_A_CHALLENGE);
}

/**
 * What a challenge is kept by (wallet_challenges.message_hash): its EIP-712 digest in hex. The
 * column held the SHA-256 of an EIP-4361 text before; no typed data has such a digest, so a proof
 * in that old form finds nothing.
 */
const keyOf = (typedData: WalletProofTypedData): string => Buffer.from(walletProofDigest(typedData)).toString('hex');
