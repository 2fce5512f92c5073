import { createHash } from 'node:crypto';
import { encodeDeployData, erc6492SignatureValidatorAbi, erc6492SignatureValidatorByteCode, type Hex } from 'viem';
import { BoundedCache } from '../bounded-cache.ts';
import type { ChainNode } from './chain-nodes.ts';
import { RpcReverted } from './json-rpc-node.ts';

/** Refusals kept, and how long: a bad credential sent again costs no call meanwhile. */
const REFUSALS_KEPT = 10_000;
/** Short: a wallet may come to approve what it refused (a signer added to it). */
const REFUSAL_MS = 60_000;

/** Asked right before a call: resolves with the call's release, or throws to refuse it. */
export type Admission = () => Promise<() => void>;

/**
 * Whether a wallet contract approves a signature (one eth_call), asked at most once at a time per
 * check — the same credential on a page's parallel requests waits for the one answer — and a
 * refusal remembered for REFUSAL_MS, so that a bad credential repeated costs one call, not one per
 * request. Keyed by a digest of the check, not the signature itself, which may be kilobytes (EIP-6492).
 */
export class ApprovalLookup {
  private readonly refusals = new BoundedCache<true>(REFUSALS_KEPT);
  private readonly underWay = new Map<string, Promise<boolean>>();

  constructor(private readonly now: () => number = Date.now) {}

  /** `digest`: what the wallet is asked to approve (a personal_sign message's hash, an EIP-712 digest). */
  approves(chain: ChainNode, address: string, digest: Uint8Array, signature: string, admit?: Admission): Promise<boolean> {
    const key = checkKey(chain.chainId, address, digest, signature);
    if (this.refusals.get(key, this.now()) !== undefined) return Promise.resolve(false);
    let answer = this.underWay.get(key);
    if (answer === undefined) {
      answer = this.ask(key, chain, address, digest, signature, admit);
      this.underWay.set(key, answer);
    }
    return answer;
  }

  private async ask(key: string, chain: ChainNode, address: string, digest: Uint8Array, signature: string, admit?: Admission) {
    try {
      const release = await admit?.();
      try {
        const approved = await isApprovedOnChain(chain, address, digest, signature);
        if (!approved) this.refusals.set(key, true, this.now() + REFUSAL_MS);
        return approved;
      } finally {
        release?.();
      }
    } finally {
      this.underWay.delete(key);
    }
  }
}

function checkKey(chainId: number, address: string, digest: Uint8Array, signature: string): string {
  return createHash('sha256').update(`${chainId}\0${address.toLowerCase()}\0${signature.toLowerCase()}\0`).update(digest).digest('base64');
}

/**
 * One eth_call of the EIP-6492 universal validator, deployed for the call only (nothing is
 * written on chain): it deploys a wrapped signature's wallet in the simulation, then asks the
 * wallet's isValidSignature (EIP-1271).
 */
async function isApprovedOnChain({ chainId, node }: ChainNode, address: string, digest: Uint8Array, signature: string): Promise<boolean> {
  const data = encodeDeployData({
    abi: erc6492SignatureValidatorAbi,
    bytecode: erc6492SignatureValidatorByteCode,
    args: [address.toLowerCase() as Hex, `0x${Buffer.from(digest).toString('hex')}`, signature as Hex],
  });
  try {
    const answer = await node.request(String(chainId), 'eth_call', [{ data }, 'latest']);
    return typeof answer === 'string' && /^0x0*1$/.test(answer);
  } catch (error) {
    // The validator reverts on what no wallet approves (a malformed signature, a failed deployment).
    if (error instanceof RpcReverted) return false;
    throw error;
  }
}
