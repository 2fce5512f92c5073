import { isIP } from 'node:net';

/**
 * Which IP addresses an outbound request (a tenant's webhook, later a tenant's own bucket) may
 * reach: global unicast only. A tenant chooses the URL, so anything else would let a tenant make
 * the service talk to its own machine, its private network or the cloud's metadata service (SSRF).
 *
 * The ranges are compared on bytes rather than with net.BlockList: a BlockList matches IPv4 rules
 * against IPv4-mapped IPv6 addresses and even lets an IPv6 rule (::/0) cover every IPv4 address,
 * and here each embedded form (mapped, compatible, NAT64, 6to4) is judged on purpose, by the IPv4
 * address inside it, with a reason that says so.
 */

export type AddressVerdict = { ok: true } | { ok: false; reason: string };

/** An address as bytes: 4 of them for IPv4, 16 for IPv6. */
export interface IpAddress {
  family: 4 | 6;
  bytes: Uint8Array;
}

/**
 * An address in the plain notation of its family (dotted decimal, or IPv6 as node:net's isIP
 * reads it, dotted tail and zone index allowed), or undefined. No brackets, no other spelling of
 * IPv4 (octal, hex, short): URLs are normalised by the WHATWG parser before they come here.
 */
export function parseIp(text: string): IpAddress | undefined {
  // A zone (fe80::1%eth0) says which interface, not which address: the address decides.
  const zone = text.indexOf('%');
  const ip = zone === -1 ? text : text.slice(0, zone);
  const family = isIP(ip);
  if (family === 4) return { family: 4, bytes: Uint8Array.from(ip.split('.'), Number) };
  if (family === 6) return { family: 6, bytes: ipv6Bytes(ip) };
  return undefined;
}

function ipv6Bytes(ip: string): Uint8Array {
  let text = ip.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    // ::ffff:1.2.3.4: the dotted tail is the last two groups.
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

/** Whether the first `prefix` bits of two addresses of one family agree. */
export function samePrefix(a: Uint8Array, b: Uint8Array, prefix: number): boolean {
  if (a.length !== b.length) return false;
  const whole = prefix >> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const bits = prefix & 7;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return ((a[whole]! ^ b[whole]!) & mask) === 0;
}

const dotted = (bytes: Uint8Array): string => bytes.join('.');

interface Range {
  network: Uint8Array;
  prefix: number;
  reason: string;
}

function range(cidr: string, reason: string): Range {
  const [address, prefix] = cidr.split('/') as [string, string];
  return { network: parseIp(address)!.bytes, prefix: Number(prefix), reason: `${reason} (${cidr})` };
}

const find = (ranges: Range[], bytes: Uint8Array): Range | undefined => ranges.find((r) => samePrefix(bytes, r.network, r.prefix));

// First match wins: the exact addresses come before the ranges that hold them.
const IPV4_RANGES: Range[] = [
  range('0.0.0.0/32', 'the unspecified address'),
  range('255.255.255.255/32', 'the broadcast address'),
  range('0.0.0.0/8', 'a "this network" address'),
  range('10.0.0.0/8', 'a private address'),
  range('100.64.0.0/10', 'a shared (carrier-grade NAT) address'),
  range('127.0.0.0/8', 'a loopback address'),
  range('169.254.0.0/16', 'a link-local address'),
  range('172.16.0.0/12', 'a private address'),
  range('192.0.0.0/24', 'an IETF protocol assignment address'),
  range('192.0.2.0/24', 'a documentation address'),
  range('192.168.0.0/16', 'a private address'),
  range('198.18.0.0/15', 'a benchmarking address'),
  range('198.51.100.0/24', 'a documentation address'),
  range('203.0.113.0/24', 'a documentation address'),
  range('224.0.0.0/4', 'a multicast address'),
  range('240.0.0.0/4', 'a reserved address'),
];

// The IPv6 ranges that are not global unicast though inside 2000::/3, or that deserve their own
// name outside it; anything else outside 2000::/3 is refused as reserved.
const IPV6_UNSPECIFIED = range('::/128', 'the unspecified address');
const IPV6_LOOPBACK = range('::1/128', 'the loopback address');
const IPV6_RANGES: Range[] = [
  IPV6_UNSPECIFIED,
  IPV6_LOOPBACK,
  range('64:ff9b:1::/48', 'a local-use NAT64 address'),
  range('100::/64', 'a discard-only address'),
  range('2001::/32', 'a Teredo tunnel address'),
  range('2001::/23', 'an IETF protocol assignment address'),
  range('2001:db8::/32', 'a documentation address'),
  range('3fff::/20', 'a documentation address'),
  range('fc00::/7', 'a unique-local address'),
  range('fe80::/10', 'a link-local address'),
  range('fec0::/10', 'a site-local address'),
  range('ff00::/8', 'a multicast address'),
];
const GLOBAL_UNICAST = range('2000::/3', 'global unicast');

// IPv6 forms that carry an IPv4 address, which is where such a packet ends up (or, for NAT64 and
// 6to4, what a gateway is asked to reach): they are as good as their IPv4 address and no better.
// `at` is the offset of the IPv4 bytes.
const IPV4_MAPPED = range('::ffff:0:0/96', 'IPv4-mapped');
const EMBEDDING: { form: Range; at: number; name: string }[] = [
  { form: IPV4_MAPPED, at: 12, name: 'an IPv4-mapped IPv6 address (::ffff:0:0/96)' },
  { form: range('::/96', ''), at: 12, name: 'an IPv4-compatible IPv6 address (::/96)' },
  { form: range('64:ff9b::/96', ''), at: 12, name: 'a NAT64 address (64:ff9b::/96)' },
  { form: range('2002::/16', ''), at: 2, name: 'a 6to4 address (2002::/16)' },
];

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), and what carries it. */
function embeddedIpv4(address: IpAddress): { ipv4: IpAddress; name: string } | undefined {
  if (address.family !== 6) return undefined;
  // :: and ::1 lie in ::/96 but are addresses of their own, not IPv4-compatible ones.
  if (find([IPV6_UNSPECIFIED, IPV6_LOOPBACK], address.bytes) !== undefined) return undefined;
  const embedding = EMBEDDING.find((e) => samePrefix(address.bytes, e.form.network, e.form.prefix));
  if (embedding === undefined) return undefined;
  return { ipv4: { family: 4, bytes: address.bytes.slice(embedding.at, embedding.at + 4) }, name: embedding.name };
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) stands for, which is what it reaches; any other address as it is. */
export function unmapped(address: IpAddress): IpAddress {
  if (address.family === 6 && samePrefix(address.bytes, IPV4_MAPPED.network, IPV4_MAPPED.prefix))
    return { family: 4, bytes: address.bytes.slice(12) };
  return address;
}

/**
 * Cloud metadata and credential endpoints: the service never reaches them, whatever OUTBOUND_ALLOW
 * lists, because they hand out the machine's own cloud credentials to whoever asks from it.
 * - 169.254.169.254: the instance metadata service of AWS, GCP, Azure, OpenStack, Oracle, DigitalOcean…
 * - fd00:ec2::254: AWS's over IPv6.
 * - 169.254.170.2: AWS ECS task role credentials.
 * - 169.254.170.23, fd00:ec2::23: AWS EKS Pod Identity credentials.
 * - 100.100.100.200: Alibaba Cloud's metadata service. It lies in 100.64.0.0/10, which an operator
 *   running on a carrier-grade NAT or a VPN such as Tailscale might well allow whole, so it is named
 *   here rather than left to that range.
 * - 168.63.129.16: Azure's WireServer (VM agent configuration, extension settings). It looks like a
 *   public address, so without this entry even an empty OUTBOUND_ALLOW would let it through.
 */
const METADATA_IPV4 = ['169.254.169.254', '169.254.170.2', '169.254.170.23', '100.100.100.200', '168.63.129.16'];
const METADATA_IPV6 = ['fd00:ec2::254', 'fd00:ec2::23'].map((ip) => parseIp(ip)!.bytes);

function isMetadataBytes(address: IpAddress): boolean {
  if (address.family === 4) return METADATA_IPV4.includes(dotted(address.bytes));
  return METADATA_IPV6.some((bytes) => samePrefix(bytes, address.bytes, 128));
}

/** Whether an address is a cloud metadata endpoint, directly or inside an IPv6 form carrying IPv4. */
export function isMetadataAddress(ip: string): boolean {
  const address = parseIp(ip);
  if (address === undefined) return false;
  const embedded = embeddedIpv4(address);
  return isMetadataBytes(address) || (embedded !== undefined && isMetadataBytes(embedded.ipv4));
}

/**
 * Whether an address is global unicast, the only kind a tenant's URL may reach by itself; if not,
 * the reason names the range (it reads after the address: "10.1.2.3, a private address (10.0.0.0/8)").
 */
export function classifyAddress(ip: string): AddressVerdict {
  const address = parseIp(ip);
  if (address === undefined) return { ok: false, reason: 'not an IP address' };
  return classify(address);
}

function classify(address: IpAddress): AddressVerdict {
  if (isMetadataBytes(address)) return { ok: false, reason: 'a cloud metadata address' };
  if (address.family === 4) {
    const refused = find(IPV4_RANGES, address.bytes);
    return refused === undefined ? { ok: true } : { ok: false, reason: refused.reason };
  }
  const embedded = embeddedIpv4(address);
  if (embedded !== undefined) {
    const inner = classify(embedded.ipv4);
    if (inner.ok) return inner;
    return { ok: false, reason: `${embedded.name} of ${dotted(embedded.ipv4.bytes)}, ${inner.reason}` };
  }
  const refused = find(IPV6_RANGES, address.bytes);
  if (refused !== undefined) return { ok: false, reason: refused.reason };
  if (!samePrefix(address.bytes, GLOBAL_UNICAST.network, GLOBAL_UNICAST.prefix)) {
    return { ok: false, reason: 'a reserved address (outside the global unicast range 2000::/3)' };
  }
  return { ok: true };
}
