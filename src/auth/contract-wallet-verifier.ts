import { BaseError, createPublicClient, type Hex, HttpRequestError, http, TimeoutError, type Transport } from 'viem';
import { AppError } from '../errors/app-error.ts';

/** Verifies signatures of smart-contract wallets (EIP-1271, and EIP-6492 before deployment) on chain. */
export interface ContractWalletVerifier {
  verify(address: string, message: Uint8Array, signature: string): Promise<boolean>;
}

export function createContractWalletVerifier(rpcUrl: string, timeoutMs = 10_000): ContractWalletVerifier {
  const transport = http(rpcUrl, { timeout: timeoutMs, retryCount: 1 });
  return {
    async verify(address, message, signature) {
      // viem's verifyMessage answers false for any failed eth_call, a refused connection
      // included, so an unreachable node would pass for a contract that refused. Only the
      // transport sees the difference; it is watched per verification so that concurrent
      // sign-ins cannot blame each other's failures.
      let unreachable: Error | undefined;
      const watched: Transport = (params) => {
        const inner = transport(params);
        const request = (async (args, options) => {
          try {
            return await inner.request(args, options);
          } catch (error) {
            unreachable ??= transportFailure(error);
            throw error;
          }
        }) as typeof inner.request;
        return { ...inner, request };
      };
      const client = createPublicClient({ transport: watched });
      let valid = false;
      try {
        valid = await client.verifyMessage({
          address: address as Hex,
          message: { raw: message },
          signature: signature as Hex,
        });
      } catch (error) {
        // A contract that reverts or answers nonsense has simply not approved the signature.
        unreachable ??= transportFailure(error);
      }
      if (valid) return true;
      if (unreachable !== undefined) {
        throw new AppError('CONTRACT_WALLET_UNAVAILABLE', 'The contract-wallet check could not reach the configured RPC node; try again', {
          cause: unreachable.name,
        });
      }
      return false;
    },
  };
}

/**
 * The failure, when the node could not be asked or gave no usable reply (refused, timed out,
 * HTTP error status, not JSON). A JSON-RPC error reply, such as a revert, is an answer.
 */
function transportFailure(error: unknown): Error | undefined {
  const isFailure = (e: unknown) => e instanceof HttpRequestError || e instanceof TimeoutError;
  if (isFailure(error)) return error as Error;
  return error instanceof BaseError ? (error.walk(isFailure) ?? undefined) : undefined;
}
