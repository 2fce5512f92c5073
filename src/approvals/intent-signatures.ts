import type { ContractWalletVerifier } from '../auth/contract-wallet-verifier.ts';
import type { AddressRecoverer } from '../auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../auth/signature/parse-signature.ts';
import { toEip55 } from '../auth/siwe/eip55.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import { type IntentTypedData, intentDigest } from './intent-typed-data.ts';

/**
 * Whether `wallet` signed exactly this typed data: by its key (the digest's signer recovered, a
 * canonical low-s signature only, so one intent has one accepted form) or, for a contract wallet,
 * by EIP-1271 on the domain's chain when an RPC node serves it. A signature over anything else — another
 * proposal, another plan, other typed data — recovers another address, and is refused the same way.
 */
export class IntentSignatures {
  constructor(
    private readonly recoverer: AddressRecoverer,
    private readonly contractWallets: ContractWalletVerifier | undefined,
  ) {}

  async check(typedData: IntentTypedData, wallet: string, signature: string): Promise<'eoa' | 'contract'> {
    const digest = intentDigest(typedData);
    try {
      if (this.recoverer.recover(digest, parseRecoverableSignature(signature)) === wallet) return 'eoa';
    } catch (error) {
      // Not a 65-byte signature: it may still be a contract wallet's (EIP-1271 allows any bytes).
      if (!isAppError(error)) throw error;
    }
    const contracts = this.contractWallets;
    const chainId = typedData.domain.chainId;
    if (contracts?.mayVerifyOn(chainId) && (await contracts.verifyDigest(chainId, wallet, digest, signature))) return 'contract';
    throw new AppError(
      'INTENT_SIGNATURE_INVALID',
      `signature is not ${toEip55(wallet)}'s signature (eth_signTypedData_v4) of this proposal's typedData: sign exactly the typedData the proposal publishes`,
    );
  }
}
