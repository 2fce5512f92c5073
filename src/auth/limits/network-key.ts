import { isIP } from 'node:net';
import type { FailureLimiter } from './failure-limiter.ts';

/**
 * The key failed sign-ins of a client address are counted under. An IPv4 address is one client.
 * An IPv6 client usually holds a whole /64 (SLAAC, privacy addresses, a delegated prefix) and can
 * pick any address in it, so counting per address would give it 2^64 fresh counters: IPv6 counts
 * per network of `ipv6Prefix` bits (AUTH_FAIL_IPV6_PREFIX; 128 = per address). An IPv4-mapped
 * IPv6 address (::ffff:a.b.c.d, what a dual-stack socket reports) is that IPv4 client. Every
 * spelling of an address gives one key; anything that is not an address is its own key.
 */
export function failureKeyOf(address: string, ipv6Prefix: number): string {
  // Only an IPv6 address has a colon: the common IPv4 case costs one scan (every request pays it).
  if (!address.includes(':')) return address;
  const withoutZone = address.replace(/%.*$/, '');
  if (isIP(withoutZone) !== 6) return address;
  const groups = groupsOf(withoutZone);
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.');
  const network = groups.map((group, i) => {
    const bits = Math.min(16, Math.max(0, ipv6Prefix - 16 * i));
    return group & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${canonical(network.map((group) => group.toString(16)).join(':'))}/${ipv6Prefix}`;
}

/** A limiter that counts under failureKeyOf(address) whatever address it is given. */
export function keyedByNetwork(limiter: FailureLimiter, ipv6Prefix: number): FailureLimiter {
  return {
    blockedFor: (client, now) => limiter.blockedFor(failureKeyOf(client, ipv6Prefix), now),
    recordFailure: (client, now) => limiter.recordFailure(failureKeyOf(client, ipv6Prefix), now),
    close: () => limiter.close(),
  };
}

/** RFC 5952's form (lowercase, zeros compressed, an embedded IPv4 tail in hex), as the WHATWG URL parser writes it. */
function canonical(ipv6: string): string {
  return new URL(`http://[${ipv6}]/`).hostname.slice(1, -1);
}

/** The eight 16-bit groups of a valid IPv6 address. */
function groupsOf(ipv6: string): number[] {
  const [head, tail] = canonical(ipv6).split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
