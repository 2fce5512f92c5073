/**
 * The EIP-4361 value rules, one per message field, shared by the parser and the formatter so that
 * what one accepts the other accepts too.
 */

import { checkRfc3339 } from '../../time/rfc3339.ts';
import { isEip55Checksummed, isHexAddress, toEip55 } from './eip55.ts';
import { SiweParseError } from './siwe-error.ts';
import { isScheme, isSegment, isStatement, isUri, parseAuthority } from './uri-grammar.ts';

export type SiweField =
  | 'scheme'
  | 'domain'
  | 'address'
  | 'statement'
  | 'uri'
  | 'version'
  | 'chainId'
  | 'nonce'
  | 'issuedAt'
  | 'expirationTime'
  | 'notBefore'
  | 'requestId'
  | 'resources';

/** How each field is named in the message text (and so in error messages). */
export const FIELD_LABELS: Readonly<Record<SiweField, string>> = {
  scheme: 'scheme',
  domain: 'domain',
  address: 'address',
  statement: 'statement',
  uri: 'URI',
  version: 'Version',
  chainId: 'Chain ID',
  nonce: 'Nonce',
  issuedAt: 'Issued At',
  expirationTime: 'Expiration Time',
  notBefore: 'Not Before',
  requestId: 'Request ID',
  resources: 'Resources',
};

const NONCE = /^[A-Za-z0-9]{8,}$/;
const DIGITS = /^[0-9]+$/;

/** Error values end up in HTTP responses: quoted, so control characters show, and kept short. */
export function quote(value: string): string {
  const shown = value.length > 80 ? `${value.slice(0, 80)}…` : value;
  return JSON.stringify(shown);
}

export function invalidField(field: SiweField, reason: string): SiweParseError {
  return new SiweParseError(`Invalid "${FIELD_LABELS[field]}": ${reason}`, field);
}

export function checkScheme(value: string): void {
  if (!isScheme(value)) throw invalidField('scheme', `${quote(value)} is not an RFC 3986 scheme`);
}

/**
 * domain = authority. An empty authority matches the RFC 3986 rule (every part of it is optional),
 * yet the vectors reject a message whose domain is missing; an authority with userinfo or port but
 * no host (":8080", "user@") names no requester either, so the host must not be empty.
 */
export function checkDomain(value: string): void {
  const authority = parseAuthority(value);
  if (authority === undefined) throw invalidField('domain', `${quote(value)} is not an RFC 3986 authority`);
  if (authority.host === '') throw invalidField('domain', `${quote(value)} has no host`);
}

export function checkAddress(value: string): void {
  if (!isHexAddress(value)) throw invalidField('address', `${quote(value)} is not "0x" followed by 40 hexadecimal digits`);
  if (!isEip55Checksummed(value)) {
    throw invalidField('address', `${quote(value)} is not in EIP-55 checksum case (expected ${toEip55(value)})`);
  }
}

/** statement = *( reserved / unreserved / " " ): may be empty, never holds LF. */
export function checkStatement(value: string): void {
  if (!isStatement(value)) {
    throw invalidField(
      'statement',
      `${quote(value)} holds a character outside RFC 3986 reserved / unreserved / space (one line of printable ASCII without " % < > \\ ^ \` { | })`,
    );
  }
}

export function checkUri(field: 'uri' | 'resources', value: string): void {
  if (!isUri(value)) throw invalidField(field, `${quote(value)} is not an RFC 3986 URI`);
}

export function checkVersion(value: string): void {
  if (value !== '1') throw invalidField('version', `${quote(value)} is not "1"`);
}

/**
 * chain-id = 1*DIGIT. Leading zeros match the grammar and no vector says otherwise, so "01" reads
 * as 1. Beyond 2^53 - 1 a JavaScript number would silently name another chain, so those are refused.
 */
export function parseChainId(value: string): number {
  if (!DIGITS.test(value)) throw invalidField('chainId', `${quote(value)} is not a decimal number`);
  const chainId = Number(value);
  if (!Number.isSafeInteger(chainId)) throw invalidField('chainId', `${quote(value)} is too large`);
  return chainId;
}

export function checkChainId(value: number): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidField('chainId', `${typeof value === 'number' ? String(value) : quote(String(value))} is not a non-negative integer`);
  }
}

export function checkNonce(value: string): void {
  if (!NONCE.test(value)) throw invalidField('nonce', `${quote(value)} is not at least 8 letters (A-Z, a-z) and digits`);
}

/** Checks an RFC 3339 field and answers its epoch milliseconds. */
export function checkDateTime(field: 'issuedAt' | 'expirationTime' | 'notBefore', value: string): number {
  const result = checkRfc3339(value);
  if (!result.ok) throw invalidField(field, `${quote(value)}: ${result.reason}`);
  return result.epochMs;
}

/** request-id = *pchar */
export function checkRequestId(value: string): void {
  if (!isSegment(value)) throw invalidField('requestId', `${quote(value)} holds a character that is not an RFC 3986 pchar`);
}
