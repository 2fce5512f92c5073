import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  formatSiweMessage,
  isEip55Checksummed,
  looksLikeSiweMessage,
  parseRfc3339,
  parseSiweMessage,
  type SiweMessage,
  SiweParseError,
  toEip55,
} from '../../src/auth/siwe/siwe-message.ts';
import { isIpv6Address, isUri, parseAuthority } from '../../src/auth/siwe/uri-grammar.ts';
import { parseError, readVectors } from '../helpers/siwe-vectors.ts';

const SETS = [
  { name: 'spruceid/siwe', dir: '' },
  { name: 'signinwithethereum/siwe', dir: 'signinwithethereum-siwe/' },
];

const MESSAGE_KEYS = new Set([
  'scheme',
  'domain',
  'address',
  'statement',
  'uri',
  'version',
  'chainId',
  'nonce',
  'issuedAt',
  'expirationTime',
  'notBefore',
  'requestId',
  'resources',
]);

/** The vectors write an absent optional field as null; a parsed message leaves it out. */
function withoutNulls(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
}

/** Verification cases mix message fields with signature, time, domainBinding…; keep the message's. */
function messageFieldsOf(fields: Record<string, unknown>): SiweMessage {
  return Object.fromEntries(Object.entries(fields).filter(([key]) => MESSAGE_KEYS.has(key))) as unknown as SiweMessage;
}

for (const set of SETS) {
  describe(`${set.name} parsing_positive.json`, () => {
    for (const [name, c] of readVectors<{ message: string; fields: Record<string, unknown> }>(set.dir, 'parsing_positive.json')) {
      test(name, () => {
        const parsed = parseSiweMessage(c.message);
        assert.deepEqual(parsed, withoutNulls(c.fields));
        assert.equal(formatSiweMessage(parsed), c.message, 'formatting the parsed fields gives the message back');
      });
    }
  });

  describe(`${set.name} parsing_negative.json`, () => {
    for (const [name, message] of readVectors<string>(set.dir, 'parsing_negative.json')) {
      test(name, () => {
        assert.throws(() => parseSiweMessage(message), SiweParseError);
      });
    }
  });

  describe(`${set.name} parsing_negative_objects.json`, () => {
    for (const [name, fields] of readVectors<Record<string, unknown>>(set.dir, 'parsing_negative_objects.json')) {
      test(name, () => {
        assert.throws(() => formatSiweMessage(fields as unknown as SiweMessage), SiweParseError);
      });
    }
  });

  test(`${set.name} verification_positive.json: every message formats and parses back`, () => {
    for (const [name, c] of readVectors<Record<string, unknown>>(set.dir, 'verification_positive.json')) {
      const fields = messageFieldsOf(c);
      const text = formatSiweMessage(fields);
      assert.deepEqual(parseSiweMessage(text), fields, name);
    }
  });
}

const ADDRESS = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

const BASE: SiweMessage = {
  domain: 'example.com',
  address: ADDRESS,
  statement: 'Sign in to wallet-admin.',
  uri: 'https://example.com/login',
  version: '1',
  chainId: 1,
  nonce: 'abcdEFGH1234',
  issuedAt: '2024-05-04T10:00:00Z',
};

const FULL: SiweMessage = {
  ...BASE,
  scheme: 'https',
  expirationTime: '2024-05-04T11:00:00.123+02:00',
  notBefore: '2024-05-04T09:59:00Z',
  requestId: 'req-1%20@x:y',
  resources: ['https://example.com/a?b=c#d', 'ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu', 'urn:isbn:0451450523'],
};

const FULL_TEXT = [
  'https://example.com wants you to sign in with your Ethereum account:',
  ADDRESS,
  '',
  'Sign in to wallet-admin.',
  '',
  'URI: https://example.com/login',
  'Version: 1',
  'Chain ID: 1',
  'Nonce: abcdEFGH1234',
  'Issued At: 2024-05-04T10:00:00Z',
  'Expiration Time: 2024-05-04T11:00:00.123+02:00',
  'Not Before: 2024-05-04T09:59:00Z',
  'Request ID: req-1%20@x:y',
  'Resources:',
  '- https://example.com/a?b=c#d',
  '- ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
  '- urn:isbn:0451450523',
].join('\n');

describe('formatSiweMessage / parseSiweMessage', () => {
  test('round trip with every optional field', () => {
    const text = formatSiweMessage(FULL);
    assert.equal(text, FULL_TEXT);
    assert.deepEqual(parseSiweMessage(text), FULL);
  });

  test('no statement, empty statement and a statement have their own layouts and round trip', () => {
    const { statement: _, ...noStatement } = BASE;
    const layouts: [SiweMessage, string][] = [
      [noStatement, `${ADDRESS}\n\n\nURI: `],
      [{ ...BASE, statement: '' }, `${ADDRESS}\n\n\n\nURI: `],
      [BASE, `${ADDRESS}\n\nSign in to wallet-admin.\n\nURI: `],
    ];
    for (const [fields, layout] of layouts) {
      const text = formatSiweMessage(fields);
      assert.ok(text.includes(layout), JSON.stringify(text));
      assert.deepEqual(parseSiweMessage(text), fields);
    }
  });

  test('an empty Resources list is kept apart from no Resources line', () => {
    const text = formatSiweMessage({ ...BASE, resources: [] });
    assert.ok(text.endsWith('\nIssued At: 2024-05-04T10:00:00Z\nResources:'));
    assert.deepEqual(parseSiweMessage(text), { ...BASE, resources: [] });
    assert.equal(parseSiweMessage(formatSiweMessage(BASE)).resources, undefined);
  });

  test('CRLF line ends are refused', () => {
    assert.match(parseError(FULL_TEXT.replaceAll('\n', '\r\n')).message, /carriage return/);
    assert.match(parseError(FULL_TEXT.replace('Version: 1\n', 'Version: 1\r\n')).message, /carriage return/);
  });

  test('a trailing newline is refused', () => {
    assert.match(parseError(`${FULL_TEXT}\n`).message, /ends with a line break/);
    assert.throws(() => parseSiweMessage(`${formatSiweMessage(BASE)}\n`), SiweParseError);
    assert.throws(() => parseSiweMessage(`${formatSiweMessage(BASE)}\n\n`), SiweParseError);
  });

  test('a duplicated field is refused', () => {
    const twice = FULL_TEXT.replace('Request ID: req-1%20@x:y', 'Request ID: req-1%20@x:y\nRequest ID: other');
    const error = parseError(twice);
    assert.match(error.message, /"Request ID" appears more than once/);
    assert.equal(error.field, 'requestId');
    assert.throws(
      () => parseSiweMessage(FULL_TEXT.replace('Nonce: abcdEFGH1234', 'Nonce: abcdEFGH1234\nNonce: abcdEFGH1234')),
      SiweParseError,
    );
    assert.throws(() => parseSiweMessage(`${FULL_TEXT}\nResources:\n- https://example.com/z`), SiweParseError);
  });

  test('fields out of order are refused', () => {
    const swapped = FULL_TEXT.replace(
      'Expiration Time: 2024-05-04T11:00:00.123+02:00\nNot Before: 2024-05-04T09:59:00Z',
      'Not Before: 2024-05-04T09:59:00Z\nExpiration Time: 2024-05-04T11:00:00.123+02:00',
    );
    assert.match(parseError(swapped).message, /"Expiration Time" is out of order/);
    assert.throws(
      () => parseSiweMessage(FULL_TEXT.replace('URI: https://example.com/login\nVersion: 1', 'Version: 1\nURI: https://example.com/login')),
      SiweParseError,
    );
  });

  test('unknown lines and fields are refused', () => {
    assert.match(parseError(`${formatSiweMessage(BASE)}\nSession: 42`).message, /not an EIP-4361 field line/);
    assert.throws(() => parseSiweMessage(FULL_TEXT.replace('Resources:', 'Resources: ')), SiweParseError);
    assert.throws(() => parseSiweMessage(FULL_TEXT.replace('Request ID: ', 'Request ID:')), SiweParseError);
    assert.throws(() => formatSiweMessage({ ...BASE, signature: '0x00' } as SiweMessage), /Unknown message field: signature/);
  });

  test('a lowercase (or otherwise not checksummed) address is refused', () => {
    for (const address of [ADDRESS.toLowerCase(), `0x${ADDRESS.slice(2).toUpperCase()}`, ADDRESS.replace('fB', 'fb')]) {
      const error = parseError(formatSiweMessage(BASE).replace(ADDRESS, address));
      assert.equal(error.field, 'address');
      assert.match(error.message, new RegExp(`expected ${ADDRESS}`));
      assert.throws(() => formatSiweMessage({ ...BASE, address }), SiweParseError);
    }
  });

  test('errors name the field and what is wrong', () => {
    const error = parseError(formatSiweMessage(BASE).replace('2024-05-04T10:00:00Z', '2024-02-30T10:00:00Z'));
    assert.equal(error.field, 'issuedAt');
    assert.match(error.message, /^Invalid "Issued At": "2024-02-30T10:00:00Z": day 30 does not exist/);
  });

  test('the statement is one line of the allowed characters', () => {
    assert.throws(() => formatSiweMessage({ ...BASE, statement: 'two\nlines' }), SiweParseError);
    for (const statement of ['say "hi"', '100%', 'a < b', 'tab\there', 'naïve']) {
      assert.throws(() => formatSiweMessage({ ...BASE, statement }), SiweParseError, statement);
    }
    assert.deepEqual(
      parseSiweMessage(formatSiweMessage({ ...BASE, statement: "Terms: https://x.y/t?a=b#c [ok] @me !$&'()*+,;=~" })).statement,
      "Terms: https://x.y/t?a=b#c [ok] @me !$&'()*+,;=~",
    );
  });

  test('domain is an authority with a host', () => {
    for (const domain of ['user:pw@[2001:db8::1]:8443', 'localhost', '127.0.0.1:1', 'xn--bcher-kva.example']) {
      assert.deepEqual(parseSiweMessage(formatSiweMessage({ ...BASE, domain })).domain, domain);
    }
    for (const domain of ['', ':8080', 'user@', 'example.com/path', 'exa mple.com', 'a@b@c', '[::1', 'example.com:80a']) {
      assert.throws(() => formatSiweMessage({ ...BASE, domain }), SiweParseError, domain);
    }
    assert.throws(() => formatSiweMessage({ ...BASE, scheme: '1http' }), SiweParseError);
  });

  test('chain ID: 1*DIGIT, leading zeros read as the number, beyond 2^53 - 1 refused', () => {
    assert.equal(parseSiweMessage(formatSiweMessage(BASE).replace('Chain ID: 1', 'Chain ID: 0137')).chainId, 137);
    assert.equal(parseError(formatSiweMessage(BASE).replace('Chain ID: 1', 'Chain ID: 9007199254740993')).field, 'chainId');
    for (const chainId of [-1, 1.5, Number.NaN, 2 ** 53]) {
      assert.throws(() => formatSiweMessage({ ...BASE, chainId }), SiweParseError, String(chainId));
    }
    assert.throws(() => parseSiweMessage(formatSiweMessage(BASE).replace('Chain ID: 1', 'Chain ID: +1')), SiweParseError);
  });

  test('a nonce is at least 8 ASCII letters and digits', () => {
    for (const nonce of ['1234567', '1234567-', 'ａｂｃｄｅｆｇｈ', '12345678 ']) {
      assert.throws(() => formatSiweMessage({ ...BASE, nonce }), SiweParseError, nonce);
    }
  });

  test('null is not a way to leave a field out', () => {
    assert.throws(() => formatSiweMessage({ ...BASE, requestId: null } as unknown as SiweMessage), /Request ID/);
  });
});

describe('looksLikeSiweMessage', () => {
  test('checks the end of the first line only', () => {
    assert.equal(looksLikeSiweMessage(FULL_TEXT), true);
    assert.equal(looksLikeSiweMessage('x wants you to sign in with your Ethereum account:'), true);
    assert.equal(looksLikeSiweMessage(FULL_TEXT.replaceAll('\n', '\r\n')), true);
    assert.equal(looksLikeSiweMessage('Sign in to example.com at 2024-05-04T10:00:00Z'), false);
    assert.equal(looksLikeSiweMessage('hello\nx wants you to sign in with your Ethereum account:'), false);
    assert.equal(looksLikeSiweMessage(''), false);
  });
});

describe('EIP-55', () => {
  test('toEip55 gives the checksum form of any letter case', () => {
    assert.equal(toEip55(ADDRESS.toLowerCase()), ADDRESS);
    assert.equal(toEip55(`0x${ADDRESS.slice(2).toUpperCase()}`), ADDRESS);
    assert.equal(toEip55('0x0000000000000000000000000000000000000000'), '0x0000000000000000000000000000000000000000');
    assert.throws(() => toEip55('0x1234'), SiweParseError);
    assert.throws(() => toEip55(ADDRESS.slice(2)), SiweParseError);
  });

  test('isEip55Checksummed accepts the checksum form only', () => {
    assert.equal(isEip55Checksummed(ADDRESS), true);
    assert.equal(isEip55Checksummed('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), true);
    assert.equal(isEip55Checksummed(ADDRESS.toLowerCase()), false);
    assert.equal(isEip55Checksummed(ADDRESS.replace('fB', 'FB')), false);
    assert.equal(isEip55Checksummed('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'), false);
  });
});

describe('parseRfc3339', () => {
  test('valid date-times give epoch milliseconds', () => {
    const valid: [string, number][] = [
      ['2021-09-30T16:25:24Z', Date.UTC(2021, 8, 30, 16, 25, 24)],
      ['2021-09-30T16:25:24.000Z', Date.UTC(2021, 8, 30, 16, 25, 24)],
      ['2021-09-30T16:25:24.1Z', Date.UTC(2021, 8, 30, 16, 25, 24, 100)],
      ['2021-09-30T16:25:24.123456789Z', Date.UTC(2021, 8, 30, 16, 25, 24, 123)],
      ['2021-09-30T16:25:24-02:00', Date.UTC(2021, 8, 30, 18, 25, 24)],
      ['2021-09-30T16:25:24+05:30', Date.UTC(2021, 8, 30, 10, 55, 24)],
      ['2021-09-30t16:25:24z', Date.UTC(2021, 8, 30, 16, 25, 24)],
      ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
      ['2000-02-29T23:59:59-00:00', Date.UTC(2000, 1, 29, 23, 59, 59)],
      ['2016-12-31T23:59:60Z', Date.UTC(2017, 0, 1)],
      ['1990-12-31T15:59:60-08:00', Date.UTC(1991, 0, 1)],
      ['0001-01-01T00:00:00Z', new Date('0001-01-01T00:00:00Z').getTime()],
    ];
    for (const [text, expected] of valid) assert.equal(parseRfc3339(text), expected, text);
  });

  test('invalid syntax and impossible dates give undefined', () => {
    const invalid = [
      '',
      'garbage',
      'Wed Oct 05 2011 16:48:00 GMT+0200 (CEST)',
      '2021-09-30',
      '2021-09-30T16:25Z',
      '2021-09-30 16:25:24Z',
      '2021-09-30T16:25:24',
      '2021-09-30T16:25:24+0200',
      '2021-09-30T16:25:24.Z',
      '2021-9-30T16:25:24Z',
      ' 2021-09-30T16:25:24Z',
      '2021-09-30T16:25:24Z ',
      '+2021-09-30T16:25:24Z',
      '2022-13-17T12:45:13.610Z',
      '2022-00-17T12:45:13Z',
      '2023-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2023-04-31T00:00:00Z',
      '2023-03-32T12:45:13.610Z',
      '2023-03-00T12:45:13Z',
      '2023-03-17T24:00:00Z',
      '2023-03-17T25:45:13.610Z',
      '2023-03-17T12:60:00Z',
      '2023-03-17T12:00:61Z',
      '2023-03-17T12:00:60Z',
      '2016-12-30T23:59:60Z',
      '2016-12-31T22:59:60Z',
      '2016-12-31T23:59:60+01:00',
      '2023-03-17T12:00:00+24:00',
      '2023-03-17T12:00:00+01:60',
      '２０２３-03-17T12:00:00Z',
    ];
    for (const text of invalid) assert.equal(parseRfc3339(text), undefined, text);
  });
});

describe('RFC 3986 URIs', () => {
  test('valid URIs of every hier-part form', () => {
    const valid = [
      'https://example.com',
      'HTTPS://EXAMPLE.COM:/',
      'mailto:someone@example.com',
      'urn:isbn:0451450523',
      'a:b:c',
      'file:///etc/hosts',
      'x:/absolute//path',
      'x:',
      'http://[v7.a:b]/',
      'http://[V1F.x]',
      'http://u%20s:p@h/%7e?q=/?#f/?',
      'ipfs://Qme7ss3ARVgxv6rXqVPiikMJ8u2NLgmgszg13pYrDKEoiu',
      'http://h:99999',
      'did:pkh:eip155:1:0xabc',
    ];
    for (const uri of valid) assert.equal(isUri(uri), true, uri);
  });

  test('invalid URIs', () => {
    const invalid = [
      '',
      'example.com',
      '//example.com',
      '/path',
      '1http://x',
      'ht tp://x',
      'http://exa mple.com',
      'http://%zz',
      'http://a/%',
      'http://a/%4',
      'http://[::1]]',
      'http://[::1',
      'http://a:b:c',
      'http://a@b@c',
      'http://h:8o',
      'http://[v7.]',
      'http://[vg.a]',
      'x:#a#b',
      'x:a|b',
      'x:a\\b',
      'x:a\nb',
      'x:ä',
      'http://[1.2.3.4]',
    ];
    for (const uri of invalid) assert.equal(isUri(uri), false, JSON.stringify(uri));
  });

  test('IPv6 addresses: eight pieces, or fewer around one "::", an IPv4 tail only last', () => {
    for (const address of ['::', '::1', '1::', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:1.2.3.4', '::ffff:1.2.3.4', 'fe80::1:2']) {
      assert.equal(isIpv6Address(address), true, address);
    }
    for (const address of [
      '',
      ':',
      ':::',
      '1::2::3',
      '1:2:3:4:5:6:7',
      '1.2.3.4::',
      '::1.2.3.4:1',
      '1:2:3:4:5:6:7:8:9',
      '12345::',
      ':1::',
      '1::2:',
    ]) {
      assert.equal(isIpv6Address(address), false, address);
    }
  });

  test('authority parts', () => {
    assert.deepEqual(parseAuthority('u:p@[::1]:8080'), { userinfo: 'u:p', host: '[::1]', hostKind: 'ip-literal', port: '8080' });
    assert.deepEqual(parseAuthority('127.0.0.1'), { host: '127.0.0.1', hostKind: 'ipv4' });
    assert.deepEqual(parseAuthority('127.0.0.01'), { host: '127.0.0.01', hostKind: 'reg-name' });
    assert.deepEqual(parseAuthority(''), { host: '', hostKind: 'reg-name' });
  });
});
