import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/errors/app-error.ts';
import { type OutboundAllow, parseOutboundAllow } from '../../src/outbound/outbound-allow.ts';
import { checkOutboundUrl, redactUrl } from '../../src/outbound/outbound-guard.ts';

type Answer = { address: string; family: number }[];
const NOTHING = parseOutboundAllow(undefined);

/** A resolver that knows only these names, and counts its calls; an IP literal must never reach it. */
function resolver(names: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = async (host: string): Promise<Answer> => {
    calls.push(host);
    const addresses = names[host];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { lookup, calls };
}

const noLookup = async (host: string): Promise<Answer> => assert.fail(`looked up ${host}`);

/** The refusal's message; fails unless the URL is refused with OUTBOUND_ADDRESS_REFUSED. */
async function refusal(url: string, allow: OutboundAllow = NOTHING, lookup = noLookup): Promise<string> {
  try {
    const target = await checkOutboundUrl(url, allow, lookup);
    return assert.fail(`${url} was let through to ${target.address}`);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    assert.equal(error.code, 'OUTBOUND_ADDRESS_REFUSED', url);
    assert.equal(error.status, 400);
    return error.message;
  }
}

// The spellings a URL may give an address in, each refused for the range it normalises to.
const SPELLINGS: [string, RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['2130706433', /loopback/],
  ['0x7f000001', /loopback/],
  ['0X7F000001', /loopback/],
  ['0177.0.0.1', /loopback/],
  ['0177.0000.0000.0001', /loopback/],
  ['127.1', /loopback/],
  ['127.0.1', /loopback/],
  ['0x7f.1', /loopback/],
  ['0x7f.0.0.0x1', /loopback/],
  ['%31%32%37.0.0.1', /loopback/],
  ['127.0.0.1.', /loopback/],
  ['127.1.', /loopback/],
  ['[::1]', /loopback/],
  ['[0:0:0:0:0:0:0:1]', /loopback/],
  ['[0000::0001]', /loopback/],
  ['[::ffff:127.0.0.1]', /IPv4-mapped.*loopback/],
  ['[::ffff:7f00:1]', /IPv4-mapped.*loopback/],
  ['[0:0:0:0:0:ffff:127.0.0.1]', /IPv4-mapped.*loopback/],
  ['[::127.0.0.1]', /IPv4-compatible.*loopback/],
  ['[64:ff9b::127.0.0.1]', /NAT64.*loopback/],
  ['[2002:7f00:1::]', /6to4.*loopback/],
  ['10.0.0.1', /private \w*\s*address \(10\.0\.0\.0\/8\)/],
  ['167772161', /10\.0\.0\.0\/8/],
  ['012.0.0.1', /10\.0\.0\.0\/8/],
  ['0xa.0.0.1', /10\.0\.0\.0\/8/],
  ['10.1', /10\.0\.0\.0\/8/],
  ['[::ffff:10.0.0.1]', /IPv4-mapped.*10\.0\.0\.0\/8/],
  ['[::ffff:a00:1]', /IPv4-mapped.*10\.0\.0\.0\/8/],
  ['172.16.0.1', /172\.16\.0\.0\/12/],
  ['0xac.0x10.0.1', /172\.16\.0\.0\/12/],
  ['2886729729', /172\.16\.0\.0\/12/],
  ['[::ffff:ac10:1]', /172\.16\.0\.0\/12/],
  ['192.168.1.1', /192\.168\.0\.0\/16/],
  ['0300.0250.1.1', /192\.168\.0\.0\/16/],
  ['3232235777', /192\.168\.0\.0\/16/],
  ['0xc0a80101', /192\.168\.0\.0\/16/],
  ['[::ffff:192.168.1.1]', /192\.168\.0\.0\/16/],
  ['169.254.1.1', /link-local/],
  ['0xa9fe0101', /link-local/],
  ['[fe80::1]', /link-local/],
  ['[fc00::1]', /unique-local/],
  ['[fd00::1]', /unique-local/],
  ['0.0.0.0', /unspecified/],
  ['0', /unspecified/],
  ['0x0', /unspecified/],
  ['[::]', /unspecified/],
  ['0.1.2.3', /0\.0\.0\.0\/8/],
  ['100.64.0.1', /100\.64\.0\.0\/10/],
  ['0x64400001', /100\.64\.0\.0\/10/],
  ['198.18.0.1', /benchmarking/],
  ['224.0.0.1', /multicast/],
  ['0xe0000001', /multicast/],
  ['[ff02::1]', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['4294967295', /broadcast/],
  ['0xffffffff', /broadcast/],
  ['240.0.0.1', /reserved/],
  ['192.0.0.1', /192\.0\.0\.0\/24/],
  ['192.0.2.1', /documentation/],
  ['198.51.100.1', /documentation/],
  ['203.0.113.1', /documentation/],
  ['[2001:db8::1]', /documentation/],
  ['[64:ff9b::10.0.0.1]', /NAT64.*private/],
  ['[2002:a00:1::]', /6to4.*private/],
];

describe('checkOutboundUrl', () => {
  it('refuses every non-public range in every spelling a URL may give it, without asking DNS', async () => {
    for (const [host, reason] of SPELLINGS) {
      for (const scheme of ['https', 'http']) {
        const message = await refusal(`${scheme}://${host}:8443/hook`, NOTHING, noLookup);
        assert.match(message, reason, `${scheme}://${host}`);
        assert.match(message, /the service reaches only public addresses; an operator may list the host or range in OUTBOUND_ALLOW/);
      }
    }
  });

  it('says what is wrong and how to fix it, in the words of the issue', async () => {
    assert.equal(
      await refusal('http://127.0.0.1:8080/'),
      'http://127.0.0.1:8080/ resolves to 127.0.0.1, a loopback address (127.0.0.0/8): ' +
        'the service reaches only public addresses; an operator may list the host or range in OUTBOUND_ALLOW',
    );
  });

  it('refuses localhost and *.localhost in any case and with a trailing dot, without asking DNS', async () => {
    for (const host of ['localhost', 'LOCALHOST', 'localhost.', 'LocalHost.', 'api.localhost', 'x.y.localhost.']) {
      assert.match(await refusal(`https://${host}/`), /this machine's loopback/, host);
    }
  });

  it('refuses a name that resolves to loopback, and one with one public and one private address', async () => {
    const { lookup, calls } = resolver({
      'rebind.example': ['127.0.0.1'],
      'mixed.example': ['93.184.215.14', '10.0.0.1'],
      'mixed6.example': ['2606:4700::1', '::1'],
      'mapped.example': ['::ffff:127.0.0.1'],
    });
    assert.match(
      await refusal('https://rebind.example/', NOTHING, lookup),
      /^https:\/\/rebind\.example\/ resolves to 127\.0\.0\.1, a loopback/,
    );
    assert.match(
      await refusal('https://mixed.example/', NOTHING, lookup),
      /resolves to 10\.0\.0\.1 \(one of 93\.184\.215\.14, 10\.0\.0\.1; each must pass\), a private/,
    );
    assert.match(await refusal('https://mixed6.example/', NOTHING, lookup), /::1 .*loopback/);
    assert.match(await refusal('https://mapped.example/', NOTHING, lookup), /IPv4-mapped.*loopback/);
    assert.deepEqual(calls, ['rebind.example', 'mixed.example', 'mixed6.example', 'mapped.example']);
  });

  it('accepts public addresses and names that resolve only to them, keeping the checked address', async () => {
    const { lookup, calls } = resolver({ 'hooks.example.com': ['93.184.215.14', '2606:4700::1'], 'v6.example': ['2606:4700::1'] });
    const byName = await checkOutboundUrl('https://Hooks.Example.COM./events?x=1', NOTHING, lookup);
    assert.deepEqual(
      { hostname: byName.hostname, address: byName.address, family: byName.family, href: byName.url.href },
      { hostname: 'hooks.example.com', address: '93.184.215.14', family: 4, href: 'https://hooks.example.com./events?x=1' },
    );
    assert.deepEqual(calls, ['hooks.example.com'], 'one lookup');
    const v6 = await checkOutboundUrl('https://v6.example:8443/', NOTHING, lookup);
    assert.deepEqual([v6.address, v6.family], ['2606:4700::1', 6]);
    const literal = await checkOutboundUrl('https://[2606:4700::1]/', NOTHING, noLookup);
    assert.deepEqual([literal.hostname, literal.address, literal.family], ['2606:4700::1', '2606:4700::1', 6]);
    const decimal = await checkOutboundUrl('https://1572394766/', NOTHING, noLookup);
    assert.deepEqual([decimal.hostname, decimal.address], ['93.184.215.14', '93.184.215.14']);
    for (const url of ['https://[::ffff:93.184.215.14]/', 'https://[64:ff9b::93.184.215.14]/', 'https://93.184.215.14:1/']) {
      await checkOutboundUrl(url, NOTHING, noLookup);
    }
  });

  it('never reaches a cloud metadata address, even when OUTBOUND_ALLOW covers everything', async () => {
    const everything = parseOutboundAllow('0.0.0.0/0,::/0 metadata.google.internal');
    const { lookup } = resolver({ 'metadata.google.internal': ['169.254.169.254'], 'sneaky.example': ['93.184.215.14', 'fd00:ec2::254'] });
    const urls = [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://0251.0376.0251.0376/',
      'http://169.254.43518/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[fd00:ec2::254]/',
      'http://[fd00:ec2::23]/',
      'http://169.254.170.2/v2/credentials',
      'http://100.100.100.200/latest/meta-data/',
      'https://168.63.129.16/machine',
      'http://metadata.google.internal/computeMetadata/v1/',
      'https://sneaky.example/',
    ];
    for (const url of urls) {
      const message = await refusal(url, everything, lookup);
      assert.match(message, /cloud metadata address.*: the service never reaches one, not even when OUTBOUND_ALLOW covers it$/, url);
    }
  });

  it('lets OUTBOUND_ALLOW=127.0.0.0/8 reach 127.0.0.1 (over http too) but not ::1 nor 10.0.0.1', async () => {
    const allow = parseOutboundAllow('127.0.0.0/8');
    const target = await checkOutboundUrl('http://127.0.0.1:8080/hook', allow, noLookup);
    assert.deepEqual([target.address, target.url.protocol], ['127.0.0.1', 'http:']);
    await checkOutboundUrl('https://2130706433:8443/', allow, noLookup);
    await checkOutboundUrl('http://[::ffff:127.0.0.2]/', allow, noLookup);
    assert.match(await refusal('http://[::1]:8080/', allow), /loopback/);
    assert.match(await refusal('https://10.0.0.1/', allow), /private/);
    const { lookup } = resolver({ 'both.example': ['127.0.0.1', '::1'] });
    assert.match(await refusal('https://both.example/', allow, lookup), /::1.*loopback/);
  });

  it('lets a host listed by name resolve to a private address and use http://, matching the name exactly', async () => {
    const allow = parseOutboundAllow('Hooks.Internal, localhost');
    const { lookup } = resolver({
      'hooks.internal': ['10.1.2.3', 'fd12::3'],
      'evil.hooks.internal': ['10.1.2.4'],
      localhost: ['127.0.0.1'],
    });
    for (const url of ['http://hooks.internal:8080/', 'https://HOOKS.INTERNAL./x', 'http://localhost:3000/']) {
      await checkOutboundUrl(url, allow, lookup);
    }
    assert.match(await refusal('https://evil.hooks.internal/', allow, lookup), /private/);
    assert.match(await refusal('https://api.localhost/', allow, lookup), /loopback/);
  });

  it('refuses http:// unless the host is listed by name or every address lies in a listed range', async () => {
    const { lookup } = resolver({ 'hooks.example.com': ['93.184.215.14'], 'split.example': ['10.1.2.3', '93.184.215.14'] });
    assert.equal(
      await refusal('http://hooks.example.com/x?token=s3cr3t', NOTHING, lookup),
      'http://hooks.example.com/x?token=*** uses http://, which only hosts an operator lists in OUTBOUND_ALLOW may use: write https://hooks.example.com/x?token=***',
    );
    assert.match(await refusal('http://93.184.215.14/', NOTHING), /uses http:\/\//);
    const ranges = parseOutboundAllow('10.1.2.0/24, 93.184.215.0/24');
    await checkOutboundUrl('http://split.example/', ranges, lookup);
    assert.match(await refusal('http://split.example/', parseOutboundAllow('10.1.2.0/24'), lookup), /uses http:\/\//);
    // A range listed lifts the http:// rule only for addresses inside it.
    assert.match(await refusal('http://hooks.example.com/', parseOutboundAllow('10.0.0.0/8'), lookup), /uses http:\/\//);
  });

  it('refuses other schemes, fragments, what is not a URL, and names that do not resolve', async () => {
    for (const url of [
      'ftp://93.184.215.14/',
      'file:///etc/passwd',
      'ws://93.184.215.14/',
      'gopher://93.184.215.14/',
      'javascript:alert(1)',
    ]) {
      assert.match(await refusal(url), /but the service posts only to https:\/\/ URLs/, url);
    }
    assert.match(await refusal('https://93.184.215.14/hook#frag'), /^https:\/\/93\.184\.215\.14\/hook#\*\*\* has a fragment/);
    assert.match(await refusal('https://93.184.215.14/hook#'), /has a fragment/);
    assert.match(await refusal('not a url'), /^"not a url" is not a URL: write it in full, as https:\/\/host\/path$/);
    assert.match(await refusal('https://'), /is not a URL/);
    const { lookup } = resolver({ 'empty.example': [] });
    assert.match(await refusal('https://nowhere.example/', NOTHING, lookup), /does not resolve \(ENOTFOUND\): check its spelling/);
    assert.match(await refusal('https://empty.example/', NOTHING, lookup), /resolves to no address/);
    const garbage = async (): Promise<Answer> => [{ address: 'not-an-ip', family: 4 }];
    assert.match(await refusal('https://garbage.example/', parseOutboundAllow('garbage.example'), garbage), /not an IP address/);
  });

  it('never echoes the password of a URL in a refusal', async () => {
    const message = await refusal('https://admin:hunter2@127.0.0.1/?key=hunter3');
    assert.ok(!message.includes('hunter'), message);
    assert.match(message, /^https:\/\/\*\*\*@127\.0\.0\.1\/\?key=\*\*\* resolves/);
    const unparsable = await refusal('https://admin:hun/ter2@exa mple.com/');
    assert.ok(!unparsable.includes('hun'), unparsable);
  });
});

describe('redactUrl', () => {
  it('hides user information, every query value and the fragment, keeping the rest', () => {
    assert.equal(
      redactUrl('https://user:pass@hooks.example.com:8443/a/b?token=abc&x=1&flag&empty=#frag'),
      'https://***@hooks.example.com:8443/a/b?token=***&x=***&***&empty=***#***',
    );
    assert.equal(redactUrl('https://user@hooks.example.com/'), 'https://***@hooks.example.com/');
    assert.equal(redactUrl('https://:pass@hooks.example.com/'), 'https://***@hooks.example.com/');
    assert.equal(redactUrl('https://hooks.example.com/path'), 'https://hooks.example.com/path');
    assert.equal(redactUrl('https://hooks.example.com/?'), 'https://hooks.example.com/?');
    assert.equal(redactUrl('https://h.example/p%3Fq?a%3D=b%26c'), 'https://h.example/p%3Fq?a%3D=***');
  });

  it('hides up to the last @ of what does not parse, where a password may hold a / or @', () => {
    assert.equal(redactUrl('https://u:p/a@ss@exa mple.com/x?k=v'), 'https://***@exa mple.com/x?k=***');
    assert.equal(redactUrl('no url at all'), 'no url at all');
  });
});

describe('parseOutboundAllow', () => {
  it('reads ranges, addresses and host names separated by commas or blanks', () => {
    const allow = parseOutboundAllow(' 127.0.0.0/8 ::1/128,10.1.2.0/24,, Hooks.Internal.\n[fd12::1] 192.168.7.7 ::ffff:172.16.0.0/108 ');
    assert.equal(allow.describe(), '127.0.0.0/8, ::1/128, 10.1.2.0/24, fd12::1/128, 192.168.7.7/32, ::ffff:172.16.0.0/108, hooks.internal');
    for (const ip of [
      '127.0.0.1',
      '127.255.255.255',
      '::1',
      '10.1.2.255',
      'fd12::1',
      '192.168.7.7',
      '::ffff:10.1.2.3',
      '172.16.0.1',
      '172.31.0.1',
    ]) {
      assert.ok(allow.allowsAddress(ip), ip);
    }
    for (const ip of ['128.0.0.1', '::2', '10.1.3.0', 'fd12::2', '192.168.7.8', '172.32.0.1', 'hooks.internal'])
      assert.ok(!allow.allowsAddress(ip), ip);
    for (const host of ['hooks.internal', 'HOOKS.internal', 'hooks.internal.']) assert.ok(allow.allowsHost(host), host);
    for (const host of ['a.hooks.internal', 'hooks.internal.example', 'hooks', '127.0.0.1']) assert.ok(!allow.allowsHost(host), host);
  });

  it('is empty when the setting is unset or blank, and says so', () => {
    for (const value of [undefined, '', ' , ']) {
      const allow = parseOutboundAllow(value);
      assert.equal(allow.describe(), 'nothing (public addresses over https only)');
      assert.ok(!allow.allowsAddress('127.0.0.1'));
      assert.ok(!allow.allowsHost('localhost'));
    }
  });

  it('keeps the families apart, and never allows a metadata address through a range', () => {
    const everything = parseOutboundAllow('0.0.0.0/0 ::/0');
    assert.ok(everything.allowsAddress('10.0.0.1') && everything.allowsAddress('fd00::1'));
    for (const ip of ['169.254.169.254', 'fd00:ec2::254', '::ffff:169.254.169.254', '100.100.100.200'])
      assert.ok(!everything.allowsAddress(ip), ip);
    assert.ok(!parseOutboundAllow('::/0').allowsAddress('10.0.0.1'), 'an IPv6 range holds no IPv4 address');
    assert.ok(!parseOutboundAllow('0.0.0.0/0').allowsAddress('::1'));
  });

  it('refuses a bad entry with a message that names it and says what is expected', () => {
    const bad: [string, RegExp][] = [
      ['10.0.0.0/33', /no prefix length between 0 and 32/],
      ['::1/129', /no prefix length between 0 and 128/],
      ['10.0.0.0/', /no prefix length/],
      ['10.0.0.0/08', /no prefix length/],
      ['10.0.0.0/8/8', /no prefix length/],
      ['/8', /is not a range/],
      ['hooks.internal/24', /is not a range/],
      ['10.1.2.3/24', /has bits set past its \/24: write 10\.1\.2\.0\/24 for the range, or 10\.1\.2\.3 alone for one address/],
      ['fe80::1%eth0', /zone index/],
      ['127.1', /a URL reads as the address 127\.0\.0\.1: list the address as 127\.0\.0\.1/],
      ['0x7f.1', /reads as the address 127\.0\.0\.1/],
      ['2130706433', /reads as the address 127\.0\.0\.1/],
      ['0177.0.0.1', /reads as the address 127\.0\.0\.1/],
      ['1.2.3.999', /a URL would not accept as a host/],
      ['http://hooks.internal', /is a URL: list its host name or address alone/],
      ['hooks.internal:8080', /neither an address, a range nor a host name/],
      ['*.example.com', /neither an address/],
      ['-bad.example', /neither an address/],
      ['a..b', /neither an address/],
      ['169.254.169.254', /cloud metadata address: the service never reaches one/],
      ['169.254.169.254/32', /cloud metadata/],
      ['fd00:ec2::254', /cloud metadata/],
    ];
    for (const [entry, why] of bad) {
      assert.throws(
        () => parseOutboundAllow(`127.0.0.0/8, ${entry}`),
        (error: Error) => {
          assert.equal(error.constructor, Error);
          assert.ok(error.message.startsWith(`OUTBOUND_ALLOW lists ${JSON.stringify(entry)}, which `), error.message);
          assert.match(error.message, why);
          assert.match(error.message, /each entry is a range \(127\.0\.0\.0\/8, ::1\/128\), an address \(10\.1\.2\.3\) or a host name/);
          return true;
        },
        entry,
      );
    }
  });
});
