import type { EnvReader } from './env-readers.ts';

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
