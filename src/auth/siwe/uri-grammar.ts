/**
 * RFC 3986 (URI generic syntax), appendix A, as recognizers named after its ABNF rules.
 *
 * A URI is split at its delimiters first and each part is then matched against its own rule. That
 * split is exact, not a heuristic: scheme cannot hold ":" "/" "?" "#", the hier-part holds neither
 * "?" nor "#", the query holds no "#", and an authority holds no "/", so every delimiter the split
 * relies on is the first of its kind in the text it is searched in.
 */

const ALPHA = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGIT = '0123456789';
const UNRESERVED = `${ALPHA}${DIGIT}-._~`;
const SUB_DELIMS = "!$&'()*+,;=";
const GEN_DELIMS = ':/?#[]@';

const USERINFO_CHARS = new Set(`${UNRESERVED}${SUB_DELIMS}:`);
const REG_NAME_CHARS = new Set(`${UNRESERVED}${SUB_DELIMS}`);
const PCHAR_CHARS = new Set(`${UNRESERVED}${SUB_DELIMS}:@`);
const QUERY_CHARS = new Set(`${UNRESERVED}${SUB_DELIMS}:@/?`);
/** Not a URI rule: EIP-4361's statement = *( reserved / unreserved / " " ), which leaves out "%". */
const STATEMENT_CHARS = new Set(`${GEN_DELIMS}${SUB_DELIMS}${UNRESERVED} `);

const HEXDIG = /^[0-9A-Fa-f]$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*$/;
const PORT = /^[0-9]*$/;
const H16 = /^[0-9A-Fa-f]{1,4}$/;
// ABNF literals are case-insensitive, hence [vV].
const IPV_FUTURE = /^[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+$/;
const STRICT_DEC_OCTET = /^(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])$/;

/** `min` counts characters, a pct-encoded triplet counting as one. */
function isRepetition(text: string, allowed: ReadonlySet<string>, percentEncoding: boolean, min = 0): boolean {
  let count = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (percentEncoding && c === '%') {
      if (!HEXDIG.test(text[i + 1] ?? '') || !HEXDIG.test(text[i + 2] ?? '')) return false;
      i += 3;
    } else if (allowed.has(c)) {
      i += 1;
    } else {
      return false;
    }
    count += 1;
  }
  return count >= min;
}

export function isScheme(text: string): boolean {
  return SCHEME.test(text);
}

export function isPctEncoded(text: string): boolean {
  return text.length === 3 && isRepetition(text, new Set(), true, 1);
}

export function isUserinfo(text: string): boolean {
  return isRepetition(text, USERINFO_CHARS, true);
}

export function isRegName(text: string): boolean {
  return isRepetition(text, REG_NAME_CHARS, true);
}

export function isPort(text: string): boolean {
  return PORT.test(text);
}

/** segment = *pchar (also EIP-4361's request-id). */
export function isSegment(text: string): boolean {
  return isRepetition(text, PCHAR_CHARS, true);
}

export function isSegmentNz(text: string): boolean {
  return isRepetition(text, PCHAR_CHARS, true, 1);
}

export function isQuery(text: string): boolean {
  return isRepetition(text, QUERY_CHARS, true);
}

/** Same rule as query. */
export function isFragment(text: string): boolean {
  return isRepetition(text, QUERY_CHARS, true);
}

export function isStatement(text: string): boolean {
  return isRepetition(text, STATEMENT_CHARS, false);
}

export function isIpvFuture(text: string): boolean {
  return IPV_FUTURE.test(text);
}

export function isIpv4Address(text: string): boolean {
  return isDottedQuad(text, STRICT_DEC_OCTET);
}

/**
 * The IPv4 tail of an IPv6 address (ls32). RFC 3986's dec-octet forbids leading zeros, but the
 * signinwithethereum vectors require [::000.000.010.001] and [::001.099.200.255] to be valid (and
 * [::0.0.0.256], [::0.ff.0.255] invalid), so here an octet is 1 to 3 digits worth at most 255.
 * Outside brackets the difference cannot be seen: "010.0.0.1" is a valid reg-name anyway.
 */
function isIpv6EmbeddedIpv4(text: string): boolean {
  return isDottedQuad(text, /^[0-9]{1,3}$/) && text.split('.').every((octet) => Number(octet) <= 255);
}

function isDottedQuad(text: string, octet: RegExp): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((part) => octet.test(part));
}

/**
 * The nine IPv6address alternatives of RFC 3986 come down to: 8 pieces of h16 (the IPv4 tail counting
 * as 2, allowed only last), or fewer around exactly one "::" that stands for at least one piece.
 */
export function isIpv6Address(text: string): boolean {
  const gap = text.indexOf('::');
  if (gap !== text.lastIndexOf('::')) return false;
  if (gap < 0) return countPieces(text.split(':')) === 8;
  const head = text.slice(0, gap);
  const tail = text.slice(gap + 2);
  if (head.includes('.')) return false;
  const headCount = head === '' ? 0 : countPieces(head.split(':'));
  const tailCount = tail === '' ? 0 : countPieces(tail.split(':'));
  return headCount >= 0 && tailCount >= 0 && headCount + tailCount <= 7;
}

/** Number of 16-bit pieces, or -1 when a piece is malformed. */
function countPieces(pieces: string[]): number {
  let count = 0;
  for (const [index, piece] of pieces.entries()) {
    if (H16.test(piece)) count += 1;
    else if (index === pieces.length - 1 && isIpv6EmbeddedIpv4(piece)) count += 2;
    else return -1;
  }
  return count;
}

export function isIpLiteral(text: string): boolean {
  if (!text.startsWith('[') || !text.endsWith(']')) return false;
  const inner = text.slice(1, -1);
  return isIpv6Address(inner) || isIpvFuture(inner);
}

export type HostKind = 'ip-literal' | 'ipv4' | 'reg-name';

export interface Authority {
  userinfo?: string;
  /** As written: an IP-literal keeps its brackets, as in the RFC 3986 host rule. */
  host: string;
  hostKind: HostKind;
  port?: string;
}

/** authority = [ userinfo "@" ] host [ ":" port ] */
export function parseAuthority(text: string): Authority | undefined {
  const at = text.indexOf('@');
  // Neither host nor port may hold "@", so a second one can never be valid.
  if (at !== text.lastIndexOf('@')) return undefined;
  const userinfo = at < 0 ? undefined : text.slice(0, at);
  if (userinfo !== undefined && !isUserinfo(userinfo)) return undefined;
  const hostPort = text.slice(at + 1);

  let host: string;
  let rest: string;
  let hostKind: HostKind;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) return undefined;
    host = hostPort.slice(0, close + 1);
    rest = hostPort.slice(close + 1);
    if (!isIpLiteral(host)) return undefined;
    hostKind = 'ip-literal';
  } else {
    const colon = hostPort.indexOf(':');
    host = colon < 0 ? hostPort : hostPort.slice(0, colon);
    rest = colon < 0 ? '' : hostPort.slice(colon);
    if (isIpv4Address(host)) hostKind = 'ipv4';
    else if (isRegName(host)) hostKind = 'reg-name';
    else return undefined;
  }

  let port: string | undefined;
  if (rest !== '') {
    if (!rest.startsWith(':') || !isPort(rest.slice(1))) return undefined;
    port = rest.slice(1);
  }
  return {
    ...(userinfo !== undefined ? { userinfo } : {}),
    host,
    hostKind,
    ...(port !== undefined ? { port } : {}),
  };
}

export interface UriComponents {
  scheme: string;
  /** Present exactly when the URI has "//" authority, even an empty one. */
  authority?: Authority;
  path: string;
  query?: string;
  fragment?: string;
}

/** URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]; undefined when not a URI. */
export function parseUri(text: string): UriComponents | undefined {
  if (typeof text !== 'string') return undefined;
  const firstDelimiter = text.search(/[:/?#]/);
  if (firstDelimiter <= 0 || text[firstDelimiter] !== ':') return undefined;
  const scheme = text.slice(0, firstDelimiter);
  if (!isScheme(scheme)) return undefined;

  let rest = text.slice(firstDelimiter + 1);
  let fragment: string | undefined;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
    if (!isFragment(fragment)) return undefined;
  }
  let query: string | undefined;
  const question = rest.indexOf('?');
  if (question >= 0) {
    query = rest.slice(question + 1);
    rest = rest.slice(0, question);
    if (!isQuery(query)) return undefined;
  }

  let authority: Authority | undefined;
  let path = rest;
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authorityText = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    path = slash < 0 ? '' : rest.slice(slash);
    authority = parseAuthority(authorityText);
    if (authority === undefined) return undefined;
  }
  // With an authority the path is path-abempty (empty or "/"-led, guaranteed by the split above);
  // without one it is path-absolute / path-rootless / path-empty, and "//" was taken as authority.
  // Either way, what is left to check is that every segment is *pchar.
  if (!path.split('/').every(isSegment)) return undefined;

  return {
    scheme,
    ...(authority !== undefined ? { authority } : {}),
    path,
    ...(query !== undefined ? { query } : {}),
    ...(fragment !== undefined ? { fragment } : {}),
  };
}

export function isUri(text: string): boolean {
  return parseUri(text) !== undefined;
}
