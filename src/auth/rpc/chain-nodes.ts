import type { RpcNode } from '../../config/chain-settings.ts';
import { type JsonRpcNode, RpcUnavailable } from './json-rpc-node.ts';

/** A node with the chain it serves, as metrics name it. */
export interface ChainNode {
  chainId: number;
  node: JsonRpcNode;
}

/**
 * Which node serves which chain. A message is checked only on its own chain's node. A bare
 * AUTH_RPC_URL's chain is asked of the node (eth_chainId) at its first use, once it answers,
 * and never again; a failed ask is asked again next time.
 */
export class ChainNodes {
  private readonly byChain = new Map<number, JsonRpcNode>();
  private unlearned: JsonRpcNode | undefined;
  private learning: Promise<void> | undefined;

  constructor(nodes: readonly RpcNode[], open: (url: string) => JsonRpcNode) {
    for (const { chainId, url } of nodes) {
      if (chainId === undefined) this.unlearned = open(url);
      else this.byChain.set(chainId, open(url));
    }
  }

  /** False when no node serves the chain, as far as is known without asking a node. */
  mayServe(chainId: number): boolean {
    return this.byChain.has(chainId) || this.unlearned !== undefined;
  }

  /** The chain's node, or undefined when none serves it; may ask a bare URL's node its chain (throws RpcUnavailable). */
  async nodeFor(chainId: number): Promise<ChainNode | undefined> {
    if (!this.byChain.has(chainId) && this.unlearned !== undefined) await this.learnChain(this.unlearned);
    const node = this.byChain.get(chainId);
    return node === undefined ? undefined : { chainId, node };
  }

  private learnChain(node: JsonRpcNode): Promise<void> {
    // Concurrent first checks share one eth_chainId.
    this.learning ??= (async () => {
      try {
        const reply = await node.request('unknown', 'eth_chainId', []);
        const chainId = typeof reply === 'string' && /^0x[0-9a-f]{1,13}$/i.test(reply) ? Number(reply) : 0;
        if (!Number.isSafeInteger(chainId) || chainId <= 0) throw new RpcUnavailable('error', 'eth_chainId answered no chain id');
        this.byChain.set(chainId, node);
        this.unlearned = undefined;
      } finally {
        this.learning = undefined;
      }
    })();
    return this.learning;
  }
}
