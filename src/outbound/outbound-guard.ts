import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { AppError } from '../errors/app-error.ts';
import { classifyAddress, isMetadataAddress } from './address-ranges.ts';
import type { OutboundAllow } from './outbound-allow.ts';

/**
 * The one gate for every URL a tenant sets that the service will call (webhooks, later a tenant's
 * own bucket): which schemes, and which addresses, a tenant may make the service reach. The check
 * resolves the name once and hands back the address it checked, which the request then connects to
 * (outbound-post.ts): a second lookup could answer differently (DNS rebinding).
 */
export interface CheckedTarget {
  url: URL;
  /** The URL's host, without brackets or trailing dot: the Host header and the TLS server name. */
  hostname: string;
  /** The address that was checked, and the only one the request may connect to. */
  address: string;
  family: 4 | 6;
}

type Lookup = (host: string) => Promise<{ address: string; family: number }[]>;

// `order: 'verbatim'` is `verbatim: true` without the deprecation: the resolver's order, so the
// address connected to is the one the system would have picked first.
const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, order: 'verbatim' });

const ONLY_PUBLIC = 'the service reaches only public addresses; an operator may list the host or range in OUTBOUND_ALLOW';
const NEVER_METADATA = 'the service never reaches one, not even when OUTBOUND_ALLOW covers it';
// A URL echoed in a message stays readable in a log line and a problem answer.
const SHOWN_LENGTH = 300;

/**
 * The target a tenant's URL may be posted to, or an AppError OUTBOUND_ADDRESS_REFUSED that says
 * what is wrong and how to put it right. `lookup` stands in for DNS in tests.
 */
export async function checkOutboundUrl(raw: string, allow: OutboundAllow, lookup: Lookup = systemLookup): Promise<CheckedTarget> {
  let shown = redactUrl(raw);
  if (shown.length > SHOWN_LENGTH) shown = `${shown.slice(0, SHOWN_LENGTH)}…`;
  const refuse = (why: string): AppError => new AppError('OUTBOUND_ADDRESS_REFUSED', `${shown} ${why}`);

  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError('OUTBOUND_ADDRESS_REFUSED', `${JSON.stringify(shown)} is not a URL: write it in full, as https://host/path`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw refuse(
      `uses ${url.protocol}, but the service posts only to https:// URLs (http:// for hosts an operator lists in OUTBOUND_ALLOW)`,
    );
  }
  // A fragment is never sent: one in a tenant's URL is a mistake that would silently change nothing.
  if (url.hash !== '' || url.href.endsWith('#')) throw refuse('has a fragment (#…), which is never sent to a server: remove it');

  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const hostAllowed = allow.allowsHost(hostname);
  let addresses: string[];
  if (isIP(hostname) !== 0) addresses = [hostname];
  else {
    // localhost and *.localhost are loopback by definition (RFC 6761), whatever a resolver says.
    if ((hostname === 'localhost' || hostname.endsWith('.localhost')) && !hostAllowed) {
      throw refuse(`names ${hostname}, this machine's loopback: ${ONLY_PUBLIC}`);
    }
    addresses = await resolve(hostname, lookup, refuse);
  }

  for (const address of addresses) {
    const at = addresses.length === 1 ? address : `${address} (one of ${addresses.join(', ')}; each must pass)`;
    const verdict = classifyAddress(address);
    if (verdict.ok) continue;
    if (isIP(address) === 0) throw refuse(`resolves to ${JSON.stringify(address)}, which is not an IP address`);
    if (isMetadataAddress(address)) throw refuse(`resolves to ${at}, ${verdict.reason}: ${NEVER_METADATA}`);
    if (!hostAllowed && !allow.allowsAddress(address)) throw refuse(`resolves to ${at}, ${verdict.reason}: ${ONLY_PUBLIC}`);
  }

  // Plain http is readable and alterable on the way; only the operator's own hosts may use it.
  if (url.protocol === 'http:' && !hostAllowed && !addresses.every((address) => allow.allowsAddress(address))) {
    throw refuse(`uses http://, which only hosts an operator lists in OUTBOUND_ALLOW may use: write ${shown.replace(/^http:/, 'https:')}`);
  }

  const address = addresses[0]!;
  return { url, hostname, address, family: isIP(address) === 6 ? 6 : 4 };
}

async function resolve(hostname: string, lookup: Lookup, refuse: (why: string) => AppError): Promise<string[]> {
  let results: { address: string }[];
  try {
    results = await lookup(hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const why = typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'lookup failed';
    throw refuse(`has a host name that does not resolve (${why}): check its spelling`);
  }
  if (results.length === 0) throw refuse('has a host name that resolves to no address: check its spelling');
  return results.map((result) => result.address);
}

const HIDDEN = '***';

/**
 * A URL as an audit entry or a log may show it: user information (a password) as ***, every query
 * value as *** (tokens travel there) with the keys kept, and a fragment as ***. What does not parse
 * as a URL loses everything up to its last '@' instead, as a password may hold the character that
 * broke the parse.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    const at = raw.lastIndexOf('@');
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0] ?? '';
    return redactQueryAndFragment(at === -1 ? raw : `${scheme}${HIDDEN}@${raw.slice(at + 1)}`);
  }
  if (url.username !== '' || url.password !== '') {
    url.password = '';
    url.username = HIDDEN;
  }
  return redactQueryAndFragment(url.href);
}

/** In a serialised URL the first '#' starts the fragment and the first '?' before it the query (others are escaped). */
function redactQueryAndFragment(text: string): string {
  const hash = text.indexOf('#');
  const beforeHash = hash === -1 ? text : text.slice(0, hash);
  const fragment = hash === -1 ? '' : hash === text.length - 1 ? '#' : `#${HIDDEN}`;
  const question = beforeHash.indexOf('?');
  if (question === -1) return beforeHash + fragment;
  const query = beforeHash
    .slice(question + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      // A part without '=' is a bare value as often as a key (?s3cr3t): hidden too.
      if (equals === -1) return part === '' ? part : HIDDEN;
      return `${part.slice(0, equals)}=${HIDDEN}`;
    })
    .join('&');
  return `${beforeHash.slice(0, question)}?${query}${fragment}`;
}
