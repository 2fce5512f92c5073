import type { RpcConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { type Admission, ApprovalLookup } from './rpc/approval-lookup.ts';
import { CallGate } from './rpc/call-gate.ts';
import { ChainNodes } from './rpc/chain-nodes.ts';
import { CodeLookup } from './rpc/code-lookup.ts';
import { JsonRpcNode, type RpcObserver, RpcReverted, RpcUnavailable } from './rpc/json-rpc-node.ts';
import { personalMessageHash } from './signature/personal-message-hash.ts';

/** Verifies signatures of smart-contract wallets (EIP-1271, and EIP-6492 before deployment) on their chain. */
export interface ContractWalletVerifier {
  /** False when no RPC serves the chain, as far as is known without asking a node. */
  mayVerifyOn(chainId: number): boolean;
  /**
   * Whether the wallet at `address` on `chainId` approves `signature` of the personal_sign
   * `message`; false too when no RPC serves the chain. Throws CONTRACT_WALLET_UNAVAILABLE when
   * the chain's node gives no answer. `admit`, when given, is asked right before the wallet is
   * (an eth_call), and may refuse: its error is thrown.
   */
  verify(chainId: number, address: string, message: Uint8Array, signature: string, admit?: Admission): Promise<boolean>;
  /** The same for a digest the wallet signed directly: an EIP-712 intent's (approvals/intent-signatures.ts). */
  verifyDigest(chainId: number, address: string, digest: Uint8Array, signature: string): Promise<boolean>;
  /** The eth_getCode cache's hits and misses, for metrics. */
  readonly codeCache: { readonly hits: number; readonly misses: number };
}

/** Calls waiting for a turn, per call allowed in flight; beyond, a call is refused at once. */
const WAITING_PER_SLOT = 4;

const ERC6492_SUFFIX = '6492649264926492649264926492649264926492649264926492649264926492';

export function createContractWalletVerifier(config: RpcConfig, observe: RpcObserver): ContractWalletVerifier {
  const gate = new CallGate(config.concurrency, config.concurrency * WAITING_PER_SLOT);
  const timeoutMs = config.timeoutSeconds * 1000;
  const chains = new ChainNodes(config.nodes, (url) => new JsonRpcNode(url, { gate, timeoutMs, observe }));
  const codes = new CodeLookup();
  const approvals = new ApprovalLookup();
  return {
    codeCache: codes.counts,
    mayVerifyOn: (chainId) => chains.mayServe(chainId),
    verify: (chainId, address, message, signature, admit) => verifyDigest(chainId, address, personalMessageHash(message), signature, admit),
    verifyDigest: (chainId, address, digest, signature) => verifyDigest(chainId, address, digest, signature),
  };

  async function verifyDigest(
    chainId: number,
    address: string,
    digest: Uint8Array,
    signature: string,
    admit?: Admission,
  ): Promise<boolean> {
    try {
      const chain = await chains.nodeFor(chainId);
      if (chain === undefined) return false;
      // Only a contract can approve a signature its address did not make with a key; a wrapped
      // (EIP-6492) signature brings the code that will be deployed there, so it is asked anyway.
      if (!isErc6492Wrapped(signature) && !(await codes.hasCode(chain, address))) return false;
      return await approvals.approves(chain, address, digest, signature, admit);
    } catch (error) {
      if (!(error instanceof RpcUnavailable || error instanceof RpcReverted)) throw error;
      const reason = error instanceof RpcUnavailable ? error.message : 'an unexpected revert';
      throw new AppError(
        'CONTRACT_WALLET_UNAVAILABLE',
        `The contract-wallet check got no answer from the RPC of chain ${chainId} (${reason}); try again`,
        undefined,
        { cause: error },
      );
    }
  }
}

function isErc6492Wrapped(signature: string): boolean {
  return signature.length > 2 + 2 * 32 && signature.slice(-64).toLowerCase() === ERC6492_SUFFIX;
}
