import { createPublicClient, http, HttpRequestError, TimeoutError, type Hex } from 'viem';
import { AppError } from '../errors/app-error.ts';

/** Verifies signatures of smart-contract wallets (EIP-1271, and EIP-6492 before deployment) on chain. */
export interface ContractWalletVerifier {
  verify(address: string, message: Uint8Array, signature: string): Promise<boolean>;
}

export function createContractWalletVerifier(rpcUrl: string, timeoutMs = 10_000): ContractWalletVerifier {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 1 }) });
  return {
    async verify(address, message, signature) {
      try {
        return await client.verifyMessage({
          address: address as Hex,
          message: { raw: message },
          signature: signature as Hex,
        });
      } catch (error) {
        // A contract that reverts or answers nonsense has simply not approved the signature.
        if (!(error instanceof HttpRequestError || error instanceof TimeoutError)) return false;
        throw new AppError('CONTRACT_WALLET_UNAVAILABLE', 'The contract-wallet check could not reach the configured RPC node; try again', {
          cause: (error as Error).name,
        });
      }
    },
  };
}
