/**
 * Sign-In with Ethereum (EIP-4361) messages: a strict parser and a formatter that refuses
 * anything the parser would refuse, so that what we build and what we accept are one language.
 *
 *   [scheme "://"] domain " wants you to sign in with your Ethereum account:" LF
 *   address LF
 *   LF
 *   [statement LF]
 *   LF
 *   "URI: " uri LF "Version: " version LF "Chain ID: " chain-id LF "Nonce: " nonce LF
 *   "Issued At: " issued-at
 *   [LF "Expiration Time: " ...] [LF "Not Before: " ...] [LF "Request ID: " ...]
 *   [LF "Resources:" *(LF "- " URI)]
 */

import { SiweParseError } from './siwe-error.ts';
import {
  checkAddress,
  checkChainId,
  checkDateTime,
  checkDomain,
  checkNonce,
  checkRequestId,
  checkScheme,
  checkStatement,
  checkUri,
  checkVersion,
  FIELD_LABELS,
  invalidField,
  parseChainId,
  quote,
  type SiweField,
} from './siwe-fields.ts';

export { isEip55Checksummed, toEip55 } from './eip55.ts';

import { parseRfc3339 } from '../../time/rfc3339.ts';

export { parseRfc3339 };

/** A message's times in epoch milliseconds. */
export interface SiweTimes {
  issuedAt: number;
  expirationTime?: number;
  notBefore?: number;
}

/** A message as parsed, and its times read once by the same pass (the rules and the claims use both). */
export interface ParsedSiweMessage {
  message: SiweMessage;
  times: SiweTimes;
}

export { SiweParseError } from './siwe-error.ts';

export interface SiweMessage {
  scheme?: string;
  domain: string;
  address: string;
  /** Absent: no statement line. "" is a present but empty statement, which the grammar allows. */
  statement?: string;
  uri: string;
  version: '1';
  chainId: number;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  /** [] is a "Resources:" line with no items, kept apart from no line at all for exact round trips. */
  resources?: string[];
}

const HEADER_SUFFIX = ' wants you to sign in with your Ethereum account:';

type TaggedField = 'uri' | 'version' | 'chainId' | 'nonce' | 'issuedAt' | 'expirationTime' | 'notBefore' | 'requestId';

const TAGS: Readonly<Record<TaggedField, string>> = {
  uri: 'URI: ',
  version: 'Version: ',
  chainId: 'Chain ID: ',
  nonce: 'Nonce: ',
  issuedAt: 'Issued At: ',
  expirationTime: 'Expiration Time: ',
  notBefore: 'Not Before: ',
  requestId: 'Request ID: ',
};
const RESOURCES_TAG = 'Resources:';
const RESOURCE_PREFIX = '- ';

const FIELD_NAMES = new Set<string>(Object.keys(FIELD_LABELS));

/** Cheap routing test, not validation. A CRLF first line counts, so that such a message is refused as malformed SIWE. */
export function looksLikeSiweMessage(text: string): boolean {
  if (typeof text !== 'string') return false;
  const end = text.indexOf('\n');
  let first = end < 0 ? text : text.slice(0, end);
  if (first.endsWith('\r')) first = first.slice(0, -1);
  return first.endsWith(HEADER_SUFFIX);
}

class LineReader {
  private index = 0;
  /** Fields read so far, to tell a duplicated line from one that is out of order. */
  readonly seen = new Set<SiweField>();

  constructor(private readonly lines: readonly string[]) {}

  get lineNumber(): number {
    return this.index + 1;
  }

  get atEnd(): boolean {
    return this.index >= this.lines.length;
  }

  peek(ahead = 0): string | undefined {
    return this.lines[this.index + ahead];
  }

  take(expected: string, field?: SiweField): string {
    const line = this.lines[this.index];
    if (line === undefined) throw new SiweParseError(`The message ends where ${expected} was expected`, field);
    this.index += 1;
    return line;
  }

  takeBlank(why: string, field?: SiweField): void {
    const n = this.lineNumber;
    const line = this.take(`an empty line ${why}`, field);
    if (line !== '') throw new SiweParseError(`Line ${n} must be empty ${why}, found ${quote(line)}`, field);
  }

  takeTagged(field: TaggedField): string {
    const tag = TAGS[field];
    const n = this.lineNumber;
    const line = this.take(`"${tag}…"`, field);
    if (!line.startsWith(tag)) {
      const found = line === '' ? 'an empty line' : quote(line);
      throw new SiweParseError(`Line ${n} must be "${tag}…" (missing or out of order "${FIELD_LABELS[field]}"), found ${found}`, field);
    }
    this.seen.add(field);
    return line.slice(tag.length);
  }

  /** Explains why a line has no place where it stands. */
  unexpected(): SiweParseError {
    const line = this.peek() ?? '';
    const n = this.lineNumber;
    if (line === '') {
      return this.index === this.lines.length - 1
        ? new SiweParseError('The message ends with a line break; the last line must not be followed by one')
        : new SiweParseError(`Line ${n} is empty; no blank line is allowed after "URI"`);
    }
    const known =
      (Object.keys(TAGS) as TaggedField[]).find((field) => line.startsWith(TAGS[field])) ??
      (line === RESOURCES_TAG ? 'resources' : undefined);
    if (known === undefined) return new SiweParseError(`Line ${n} is not an EIP-4361 field line: ${quote(line)}`);
    const label = FIELD_LABELS[known];
    return this.seen.has(known)
      ? new SiweParseError(`Line ${n}: "${label}" appears more than once`, known)
      : new SiweParseError(`Line ${n}: "${label}" is out of order (EIP-4361 fixes the order of the fields)`, known);
  }
}

export function parseSiweMessage(text: string): SiweMessage {
  return parseWithTimes(text).message;
}

/**
 * A SIWE message with its times, or undefined for a text that is no SIWE message at all (its first
 * line is no SIWE header); one that is but breaks the grammar throws SiweParseError.
 */
export function readSiweMessage(text: string): ParsedSiweMessage | undefined {
  return looksLikeSiweMessage(text) ? parseWithTimes(text) : undefined;
}

/** Parses the text by the EIP-4361 grammar, with its times; SiweParseError names the first thing wrong. */
function parseWithTimes(text: string): ParsedSiweMessage {
  if (typeof text !== 'string') throw new SiweParseError('The message is not a string');
  // LF is the only line break of the grammar; a CR would otherwise end up inside the last field of a line.
  if (text.includes('\r')) throw new SiweParseError('The message contains a carriage return (CR); EIP-4361 lines end with LF alone');
  const lines = new LineReader(text.split('\n'));

  const header = lines.take('the header line');
  if (!header.endsWith(HEADER_SUFFIX)) {
    throw new SiweParseError(`The first line must end with "${HEADER_SUFFIX}"`);
  }
  const origin = header.slice(0, -HEADER_SUFFIX.length);
  if (origin === '') throw invalidField('domain', 'missing');
  // An authority holds no "/", so a "://" can only end the optional scheme.
  const separator = origin.indexOf('://');
  const scheme = separator < 0 ? undefined : origin.slice(0, separator);
  const domain = separator < 0 ? origin : origin.slice(separator + 3);
  if (scheme !== undefined) checkScheme(scheme);
  checkDomain(domain);

  const address = lines.take('the address', 'address');
  checkAddress(address);
  lines.takeBlank('after the address');

  // address LF LF [statement LF] LF: a blank line then a non-blank one means no statement; two blank
  // lines mean a present but empty statement (the grammar's statement may be empty).
  let statement: string | undefined;
  if (lines.peek() !== '' || lines.peek(1) === '') {
    statement = lines.take('the statement', 'statement');
    checkStatement(statement);
  }
  if (statement === undefined) lines.takeBlank('before "URI"');
  else lines.takeBlank('after the statement (a statement is one line; without a statement, two empty lines precede "URI")', 'statement');

  const uri = lines.takeTagged('uri');
  checkUri('uri', uri);
  const version = lines.takeTagged('version');
  checkVersion(version);
  const chainId = parseChainId(lines.takeTagged('chainId'));
  const nonce = lines.takeTagged('nonce');
  checkNonce(nonce);
  const issuedAt = lines.takeTagged('issuedAt');
  const times: SiweTimes = { issuedAt: checkDateTime('issuedAt', issuedAt) };

  const message: SiweMessage = {
    ...(scheme !== undefined ? { scheme } : {}),
    domain,
    address,
    ...(statement !== undefined ? { statement } : {}),
    uri,
    version: '1',
    chainId,
    nonce,
    issuedAt,
  };

  for (const field of ['expirationTime', 'notBefore'] as const) {
    if (lines.peek()?.startsWith(TAGS[field])) {
      const value = lines.takeTagged(field);
      times[field] = checkDateTime(field, value);
      message[field] = value;
    }
  }
  if (lines.peek()?.startsWith(TAGS.requestId)) {
    const requestId = lines.takeTagged('requestId');
    checkRequestId(requestId);
    message.requestId = requestId;
  }
  if (lines.peek() === RESOURCES_TAG) {
    lines.take(RESOURCES_TAG);
    lines.seen.add('resources');
    const resources: string[] = [];
    while (lines.peek()?.startsWith(RESOURCE_PREFIX)) {
      const resource = lines.take('a resource').slice(RESOURCE_PREFIX.length);
      checkUri('resources', resource);
      resources.push(resource);
    }
    message.resources = resources;
  }
  if (!lines.atEnd) throw lines.unexpected();
  return { message, times };
}

function requireString(fields: Record<string, unknown>, field: SiweField): string {
  const value = fields[field];
  if (value === undefined) throw invalidField(field, 'missing');
  if (typeof value !== 'string') throw invalidField(field, `must be a string, not ${value === null ? 'null' : typeof value}`);
  return value;
}

function optionalString(fields: Record<string, unknown>, field: SiweField): string | undefined {
  return fields[field] === undefined ? undefined : requireString(fields, field);
}

/** Builds the exact text of a message after checking every field by the grammar the parser uses. */
export function formatSiweMessage(fields: SiweMessage): string {
  if (fields === null || typeof fields !== 'object') throw new SiweParseError('The message fields must be an object');
  const record = fields as unknown as Record<string, unknown>;
  // A misspelt optional field would otherwise vanish from the message without a word.
  const unknown = Object.keys(record).filter((key) => !FIELD_NAMES.has(key) && record[key] !== undefined);
  if (unknown.length > 0) throw new SiweParseError(`Unknown message field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);

  const scheme = optionalString(record, 'scheme');
  if (scheme !== undefined) checkScheme(scheme);
  const domain = requireString(record, 'domain');
  checkDomain(domain);
  const address = requireString(record, 'address');
  checkAddress(address);
  const statement = optionalString(record, 'statement');
  if (statement !== undefined) checkStatement(statement);
  const uri = requireString(record, 'uri');
  checkUri('uri', uri);
  checkVersion(requireString(record, 'version'));
  if (record.chainId === undefined) throw invalidField('chainId', 'missing');
  checkChainId(record.chainId as number);
  const nonce = requireString(record, 'nonce');
  checkNonce(nonce);
  const issuedAt = requireString(record, 'issuedAt');
  checkDateTime('issuedAt', issuedAt);
  const expirationTime = optionalString(record, 'expirationTime');
  if (expirationTime !== undefined) checkDateTime('expirationTime', expirationTime);
  const notBefore = optionalString(record, 'notBefore');
  if (notBefore !== undefined) checkDateTime('notBefore', notBefore);
  const requestId = optionalString(record, 'requestId');
  if (requestId !== undefined) checkRequestId(requestId);
  const resources = record.resources;
  if (resources !== undefined) {
    if (!Array.isArray(resources)) throw invalidField('resources', 'must be an array of URIs');
    for (const resource of resources) {
      if (typeof resource !== 'string') throw invalidField('resources', 'must be an array of URIs');
      checkUri('resources', resource);
    }
  }

  const lines = [`${scheme !== undefined ? `${scheme}://` : ''}${domain}${HEADER_SUFFIX}`, address, ''];
  if (statement !== undefined) lines.push(statement);
  lines.push(
    '',
    `${TAGS.uri}${uri}`,
    `${TAGS.version}1`,
    `${TAGS.chainId}${record.chainId as number}`,
    `${TAGS.nonce}${nonce}`,
    `${TAGS.issuedAt}${issuedAt}`,
  );
  if (expirationTime !== undefined) lines.push(`${TAGS.expirationTime}${expirationTime}`);
  if (notBefore !== undefined) lines.push(`${TAGS.notBefore}${notBefore}`);
  if (requestId !== undefined) lines.push(`${TAGS.requestId}${requestId}`);
  if (resources !== undefined) lines.push(RESOURCES_TAG, ...(resources as string[]).map((resource) => `${RESOURCE_PREFIX}${resource}`));
  return lines.join('\n');
}
