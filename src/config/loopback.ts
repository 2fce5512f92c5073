import { BlockList, isIP } from 'node:net';

const LOOPBACK_ADDRESSES = new BlockList();
LOOPBACK_ADDRESSES.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK_ADDRESSES.addAddress('::1', 'ipv6');

/**
 * Whether a host, as HOST or a URL's hostname gives it (an IPv6 address with or without brackets),
 * can be reached only from this machine: 127.0.0.0/8, ::1 (in any of its spellings, and
 * ::ffff:127.x.x.x) or localhost. Any other name may resolve anywhere, so it is not loopback.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
  if (bare === 'localhost' || bare === 'localhost.') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK_ADDRESSES.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
