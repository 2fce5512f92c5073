import { type IpAddress, isMetadataAddress, parseIp, samePrefix, unmapped } from './address-ranges.ts';

/**
 * OUTBOUND_ALLOW: the hosts and ranges an operator lets tenants' outbound URLs reach although they
 * are not public (a webhook receiver on the private network, a bucket on a MinIO next door). What is
 * listed may also be reached over plain http://. Cloud metadata addresses stay out of reach whatever
 * is listed (address-ranges.ts).
 */
export interface OutboundAllow {
  /** Whether a listed range holds this address (never for a cloud metadata address). */
  allowsAddress(ip: string): boolean;
  /** Whether this host name is listed, case-insensitively and without a trailing dot. */
  allowsHost(hostname: string): boolean;
  /** The list as it is in force, for the start-up log. */
  describe(): string;
}

interface Subnet {
  network: IpAddress;
  prefix: number;
  text: string;
}

const FORMS =
  'each entry is a range (127.0.0.0/8, ::1/128), an address (10.1.2.3) or a host name (hooks.internal), separated by commas or blanks';
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
const HOST_NAME = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);

/** The list an OUTBOUND_ALLOW value gives; throws an Error naming the first entry that is not right. */
export function parseOutboundAllow(value: string | undefined): OutboundAllow {
  const subnets: Subnet[] = [];
  const hosts = new Set<string>();
  for (const entry of (value ?? '').split(/[\s,]+/)) {
    if (entry === '') continue;
    const refuse = (what: string): never => {
      throw new Error(`OUTBOUND_ALLOW lists ${JSON.stringify(entry)}, which ${what}; ${FORMS}`);
    };
    if (entry.includes('://')) refuse('is a URL: list its host name or address alone');
    const subnet = parseSubnet(entry, refuse);
    if (subnet !== undefined) subnets.push(subnet);
    else hosts.add(parseHostName(entry, refuse));
  }
  const entries = [...subnets.map((s) => s.text), ...hosts];
  return {
    allowsAddress(ip) {
      const parsed = parseIp(ip);
      if (parsed === undefined || isMetadataAddress(ip)) return false;
      // ::ffff:10.1.2.3 is 10.1.2.3 on the wire: 10.0.0.0/8 covers both spellings.
      const address = unmapped(parsed);
      return subnets.some((s) => s.network.family === address.family && samePrefix(address.bytes, s.network.bytes, s.prefix));
    },
    allowsHost(hostname) {
      return hosts.has(bareName(hostname));
    },
    describe() {
      return entries.length === 0 ? 'nothing (public addresses over https only)' : entries.join(', ');
    },
  };
}

/** A range or a single address, or undefined when the entry is neither (then it may be a host name). */
function parseSubnet(entry: string, refuse: (what: string) => never): Subnet | undefined {
  const slash = entry.indexOf('/');
  const addressText = stripBrackets(slash === -1 ? entry : entry.slice(0, slash)).toLowerCase();
  if (addressText.includes('%')) refuse('has a zone index (%…): list the address without it');
  const parsed = parseIp(addressText);
  if (parsed === undefined) {
    if (slash !== -1) refuse('is not a range: the part before / must be an IPv4 or IPv6 address');
    return undefined;
  }
  const bits = parsed.family === 4 ? 32 : 128;
  let prefix = bits;
  if (slash !== -1) {
    const prefixText = entry.slice(slash + 1);
    prefix = Number(prefixText);
    if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText) || prefix > bits) refuse(`has no prefix length between 0 and ${bits} after /`);
  }
  if (prefix === bits && isMetadataAddress(addressText)) {
    refuse('is a cloud metadata address: the service never reaches one, whatever OUTBOUND_ALLOW lists');
  }
  const network = { family: parsed.family, bytes: parsed.bytes.map((byte, i) => byte & maskByte(prefix, i)) };
  if (!samePrefix(network.bytes, parsed.bytes, bits)) {
    const start = slash === -1 ? addressText : `${format(network)}/${prefix}`;
    refuse(`has bits set past its /${prefix}: write ${start} for the range, or ${addressText} alone for one address`);
  }
  const text = `${addressText}/${prefix}`;
  const unmappedNetwork = unmapped(network);
  // A mapped range (::ffff:10.0.0.0/104) is kept as the IPv4 range it spells, as addresses are.
  if (unmappedNetwork !== network && prefix >= 96) return { network: unmappedNetwork, prefix: prefix - 96, text };
  return { network, prefix, text };
}

function maskByte(prefix: number, index: number): number {
  const bits = Math.min(8, Math.max(0, prefix - 8 * index));
  return (0xff << (8 - bits)) & 0xff;
}

function format(address: IpAddress): string {
  if (address.family === 4) return address.bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((address.bytes[i]! << 8) | address.bytes[i + 1]!).toString(16));
  // Not the shortest spelling (no ::), but a correct one: it only appears in a hint.
  return groups.join(':');
}

function parseHostName(entry: string, refuse: (what: string) => never): string {
  const name = bareName(entry);
  if (!HOST_NAME.test(name)) refuse('is neither an address, a range nor a host name (letters, digits, - and _ in dot-separated labels)');
  // A name that a URL reads as an address (127.1, 0x7f.1, 2130706433) would never match a URL's
  // host, which arrives normalised to dotted decimal: have it written that way.
  let inUrl: string;
  try {
    inUrl = new URL(`http://${name}/`).hostname;
  } catch {
    return refuse('a URL would not accept as a host');
  }
  if (inUrl !== name) refuse(`a URL reads as the address ${inUrl}: list the address as ${inUrl}`);
  return name;
}

const stripBrackets = (text: string): string => (text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text);

/** A host name as compared: lower case, without the trailing dot of an absolute name. */
const bareName = (hostname: string): string => hostname.toLowerCase().replace(/\.$/, '');
