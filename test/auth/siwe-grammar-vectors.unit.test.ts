/**
 * The grammar and URI edge cases that only the signinwithethereum/siwe vectors have
 * (the common parsing_* files are run for both sets in siwe.unit.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatSiweMessage, parseSiweMessage, type SiweMessage, SiweParseError } from '../../src/auth/siwe/siwe-message.ts';
import {
  isFragment,
  isIpvFuture,
  isPctEncoded,
  isRegName,
  isScheme,
  isSegmentNz,
  isStatement,
  isUserinfo,
  parseUri,
  type UriComponents,
} from '../../src/auth/siwe/uri-grammar.ts';
import { parseError, readVectors } from '../helpers/siwe-vectors.ts';

/** signinwithethereum/siwe's set: its folder among the vectors. */
const SET = 'signinwithethereum-siwe/';

/** The vectors name ABNF rules; each one maps to its recognizer, matched against the whole input. */
const RULES: Record<string, (text: string) => boolean> = {
  scheme: isScheme,
  statement: isStatement,
  'pct-encoded': isPctEncoded,
  userinfo: isUserinfo,
  IPvFuture: isIpvFuture,
  'reg-name': isRegName,
  'segment-nz': isSegmentNz,
  fragment: isFragment,
};

interface CharCase {
  rule: string;
  input: string;
  answer: boolean;
}

for (const file of ['valid_chars.json', 'invalid_chars.json']) {
  describe(file, () => {
    for (const [name, c] of readVectors<CharCase>(SET, file)) {
      test(name, () => {
        const rule = RULES[c.rule];
        if (rule === undefined) assert.fail(`no recognizer for the rule "${c.rule}"`);
        assert.equal(rule(c.input), c.answer);
      });
    }
  });
}

describe('invalid_uris.json', () => {
  for (const [name, message] of readVectors<string>(SET, 'invalid_uris.json')) {
    test(name, () => {
      assert.equal(parseError(message).field, 'uri');
    });
  }
});

describe('invalid_resources.json', () => {
  for (const [name, message] of readVectors<string>(SET, 'invalid_resources.json')) {
    test(name, () => {
      assert.equal(parseError(message).field, 'resources');
    });
  }
});

describe('valid_resources.json', () => {
  for (const [name, c] of readVectors<{ msg: string; resources: string[] }>(SET, 'valid_resources.json')) {
    test(name, () => {
      const message = parseSiweMessage(c.msg);
      assert.deepEqual(message.resources, c.resources);
      assert.equal(formatSiweMessage(message), c.msg);
    });
  }
});

type UriExpectation = Partial<Record<'scheme' | 'userinfo' | 'host' | 'port' | 'path' | 'query' | 'fragment', string | number | null>>;

/**
 * The expectations come from uri-js: absent parts are null, an IP-literal host is given without its
 * brackets (RFC 3986's host rule keeps them, and so does UriComponents), a port with digits is a number.
 */
function uriPart(parts: UriComponents, key: string): string | null {
  const authority = parts.authority;
  switch (key) {
    case 'scheme':
      return parts.scheme;
    case 'userinfo':
      return authority?.userinfo ?? null;
    case 'host':
      if (authority === undefined) return null;
      return authority.hostKind === 'ip-literal' ? authority.host.slice(1, -1) : authority.host;
    case 'port':
      return authority?.port ?? null;
    case 'path':
      return parts.path;
    case 'query':
      return parts.query ?? null;
    case 'fragment':
      return parts.fragment ?? null;
    default:
      assert.fail(`unknown URI component "${key}" in the vector`);
  }
}

describe('valid_uris.json', () => {
  for (const [name, c] of readVectors<{ msg: string; uri: UriExpectation }>(SET, 'valid_uris.json')) {
    test(name, () => {
      const message = parseSiweMessage(c.msg);
      assert.equal(formatSiweMessage(message), c.msg);
      const parts = parseUri(message.uri);
      assert.ok(parts !== undefined);
      for (const [key, expected] of Object.entries(c.uri)) {
        assert.equal(uriPart(parts, key), typeof expected === 'number' ? String(expected) : expected, key);
      }
    });
  }
});

describe('valid_specification.json', () => {
  type Items = Partial<Record<'statement' | 'requestId' | 'resources', string | string[] | null>>;
  for (const [name, c] of readVectors<{ msg: string; items: Items }>(SET, 'valid_specification.json')) {
    test(name, () => {
      const message = parseSiweMessage(c.msg);
      for (const [key, expected] of Object.entries(c.items)) {
        assert.deepEqual(message[key as keyof Items], expected ?? undefined, key);
      }
      assert.equal(formatSiweMessage(message), c.msg);
    });
  }
});

/**
 * message_objects.json describes the expected failure in words ("invalid resource URI", "invalid
 * not-before date time semantics"); the ABNF rule those words name tells which field must be at fault.
 * "resource" comes before "uri" because "invalid resource URI" names both.
 */
const RULE_FIELDS: [string, string][] = [
  ['issued-at', 'issuedAt'],
  ['expiration-time', 'expirationTime'],
  ['not-before', 'notBefore'],
  ['request-id', 'requestId'],
  ['resource', 'resources'],
  ['address', 'address'],
  ['domain', 'domain'],
  ['statement', 'statement'],
  ['nonce', 'nonce'],
  ['chain', 'chainId'],
  ['version', 'version'],
  ['scheme', 'scheme'],
  ['uri', 'uri'],
];

describe('message_objects.json', () => {
  for (const [name, c] of readVectors<{ msg: Record<string, unknown>; error: string }>(SET, 'message_objects.json')) {
    test(name, () => {
      const fields = c.msg as unknown as SiweMessage;
      if (c.error === 'none') {
        assert.deepEqual(parseSiweMessage(formatSiweMessage(fields)), fields);
        return;
      }
      const field = RULE_FIELDS.find(([rule]) => c.error.toLowerCase().includes(rule))?.[1];
      if (field === undefined) assert.fail(`cannot tell which field "${c.error}" is about`);
      assert.throws(
        () => formatSiweMessage(fields),
        (error: unknown) => error instanceof SiweParseError && error.field === field,
      );
    });
  }
});
