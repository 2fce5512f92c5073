import { BoundedCache } from '../bounded-cache.ts';
import type { ChainNode } from './chain-nodes.ts';
import { RpcUnavailable } from './json-rpc-node.ts';

const CACHE_SIZE = 10_000;
/** Code stays (only a 7702 delegation can be withdrawn, and then the wallet's own check fails). */
const HAS_CODE_MS = 24 * 3600_000;
/** A counterfactual wallet may be deployed any time; until then its signatures come 6492-wrapped, which skip this. */
const NO_CODE_MS = 10 * 60_000;

/**
 * Whether an address holds code (eth_getCode), cached per chain and address: a flood of bad
 * signatures for one wallet costs one call per NO_CODE_MS, and concurrent lookups share one call.
 */
export class CodeLookup {
  private readonly known = new BoundedCache<boolean>(CACHE_SIZE);
  private readonly pending = new Map<string, Promise<boolean>>();
  /** Lookups answered without a call (cached, or joining one in flight), and those that made one. */
  readonly counts = { hits: 0, misses: 0 };

  constructor(private readonly now: () => number = Date.now) {}

  hasCode({ chainId, node }: ChainNode, address: string): Promise<boolean> {
    const key = `${chainId}:${address.toLowerCase()}`;
    const cached = this.known.get(key, this.now());
    const pending = cached === undefined ? this.pending.get(key) : undefined;
    if (cached !== undefined || pending !== undefined) {
      this.counts.hits++;
      return pending ?? Promise.resolve(cached!);
    }
    this.counts.misses++;
    const lookup = (async () => {
      try {
        const code = await node.request(String(chainId), 'eth_getCode', [address.toLowerCase(), 'latest']);
        if (typeof code !== 'string' || !/^0x[0-9a-f]*$/i.test(code)) throw new RpcUnavailable('error', 'eth_getCode answered no code');
        const hasCode = !/^0x0*$/.test(code);
        this.known.set(key, hasCode, this.now() + (hasCode ? HAS_CODE_MS : NO_CODE_MS));
        return hasCode;
      } finally {
        this.pending.delete(key);
      }
    })();
    this.pending.set(key, lookup);
    return lookup;
  }
}
