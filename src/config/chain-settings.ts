import type { EnvReader } from './env-readers.ts';

/** A JSON-RPC node that contract-wallet signatures are checked on. */
export interface RpcNode {
  /** The chain it serves; undefined for a bare AUTH_RPC_URL, whose chain is asked of the node itself. */
  chainId: number | undefined;
  /** May carry credentials (user:password@, a key in the path): never logged, never echoed. */
  url: string;
}

const POSITIVE_INTEGER = /^[1-9]\d*$/;

function chainIdOf(text: string): number | undefined {
  const id = Number(text);
  return POSITIVE_INTEGER.test(text) && Number.isSafeInteger(id) ? id : undefined;
}

/** AUTH_CHAIN_IDS: the chain ids a SIWE message may name; undefined (unset) accepts any. */
export function readChainIds(read: EnvReader): number[] | undefined {
  const items = read.list('AUTH_CHAIN_IDS');
  if (items === undefined) return undefined;
  const ids = new Set<number>();
  for (const item of items) {
    const id = chainIdOf(item);
    if (id === undefined) read.problems.push(`AUTH_CHAIN_IDS entries must be positive whole numbers (got "${item}")`);
    else ids.add(id);
  }
  if (items.length === 0) read.problems.push('AUTH_CHAIN_IDS must list at least one chain id; leave it unset to accept any chain');
  return [...ids];
}

const PAIRS = /^\d+\s*=/;

/**
 * AUTH_RPC_URL: `CHAIN=URL` pairs (`1=https://a,8453=https://b`), or one bare URL whose chain the
 * node is asked. Problems name the chain or the entry's position, never the URL: RPC URLs often
 * hold an API key.
 */
export function readRpcNodes(read: EnvReader): RpcNode[] {
  const value = read.raw('AUTH_RPC_URL');
  if (value === undefined) return [];
  if (!PAIRS.test(value)) {
    const url = httpUrl(value);
    if (url !== undefined) return [{ chainId: undefined, url }];
    read.problems.push('AUTH_RPC_URL must be an http: or https: URL, or CHAIN=URL pairs (1=https://…,8453=https://…)');
    return [];
  }
  const nodes: RpcNode[] = [];
  for (const [index, item] of value.split(',').entries()) {
    const separator = item.indexOf('=');
    const chainId = separator < 0 ? undefined : chainIdOf(item.slice(0, separator).trim());
    if (chainId === undefined) {
      read.problems.push(`AUTH_RPC_URL entry ${index + 1} must be CHAIN=URL with a positive whole-number chain id`);
      continue;
    }
    const url = httpUrl(item.slice(separator + 1).trim());
    if (url === undefined) read.problems.push(`AUTH_RPC_URL for chain ${chainId} must be an http: or https: URL`);
    else if (nodes.some((node) => node.chainId === chainId)) read.problems.push(`AUTH_RPC_URL names chain ${chainId} more than once`);
    else nodes.push({ chainId, url });
  }
  return nodes;
}

function httpUrl(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
