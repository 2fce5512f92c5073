import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyAddress, isMetadataAddress, parseIp, unmapped } from '../../src/outbound/address-ranges.ts';

/** Each address that is not global unicast, with a pattern its reason must match (it names the range). */
const REFUSED: [string, RegExp][] = [
  ['0.0.0.0', /unspecified/],
  ['0.1.2.3', /"this network".*0\.0\.0\.0\/8/],
  ['10.0.0.1', /private.*10\.0\.0\.0\/8/],
  ['10.255.255.255', /private.*10\.0\.0\.0\/8/],
  ['100.64.0.1', /carrier-grade NAT.*100\.64\.0\.0\/10/],
  ['100.127.255.255', /carrier-grade NAT/],
  ['127.0.0.1', /loopback.*127\.0\.0\.0\/8/],
  ['127.255.255.254', /loopback/],
  ['169.254.1.1', /link-local.*169\.254\.0\.0\/16/],
  ['172.16.0.1', /private.*172\.16\.0\.0\/12/],
  ['172.31.255.255', /private.*172\.16\.0\.0\/12/],
  ['192.0.0.8', /IETF protocol assignment.*192\.0\.0\.0\/24/],
  ['192.0.2.1', /documentation.*192\.0\.2\.0\/24/],
  ['192.168.1.1', /private.*192\.168\.0\.0\/16/],
  ['198.18.0.1', /benchmarking.*198\.18\.0\.0\/15/],
  ['198.19.255.255', /benchmarking/],
  ['198.51.100.7', /documentation.*198\.51\.100\.0\/24/],
  ['203.0.113.9', /documentation.*203\.0\.113\.0\/24/],
  ['224.0.0.1', /multicast.*224\.0\.0\.0\/4/],
  ['239.255.255.250', /multicast/],
  ['240.0.0.1', /reserved.*240\.0\.0\.0\/4/],
  ['255.255.255.255', /broadcast/],
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['0:0:0:0:0:0:0:1', /loopback/],
  ['fe80::1', /link-local.*fe80::\/10/],
  ['febf:ffff::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['fc00::1', /unique-local.*fc00::\/7/],
  ['fd12:3456::1', /unique-local/],
  ['fec0::1', /site-local/],
  ['ff02::1', /multicast.*ff00::\/8/],
  ['2001:db8::1', /documentation.*2001:db8::\/32/],
  ['3fff::1', /documentation/],
  ['2001::1', /Teredo/],
  ['2001:2::1', /IETF protocol assignment/],
  ['100::1', /discard-only/],
  ['64:ff9b:1::1', /local-use NAT64/],
  ['4000::1', /reserved.*2000::\/3/],
  // IPv6 forms that carry an IPv4 address are judged by it, in each notation.
  ['::ffff:127.0.0.1', /IPv4-mapped.*of 127\.0\.0\.1, a loopback/],
  ['::ffff:7f00:1', /IPv4-mapped.*of 127\.0\.0\.1, a loopback/],
  ['::FFFF:10.1.2.3', /IPv4-mapped.*of 10\.1\.2\.3, a private/],
  ['0:0:0:0:0:ffff:c0a8:101', /IPv4-mapped.*of 192\.168\.1\.1, a private/],
  ['::ffff:0.0.0.0', /IPv4-mapped.*unspecified/],
  ['::127.0.0.1', /IPv4-compatible.*of 127\.0\.0\.1, a loopback/],
  ['::a00:1', /IPv4-compatible.*of 10\.0\.0\.1/],
  ['::0.0.0.2', /IPv4-compatible.*"this network"/],
  ['64:ff9b::127.0.0.1', /NAT64.*of 127\.0\.0\.1, a loopback/],
  ['64:ff9b::a00:1', /NAT64.*of 10\.0\.0\.1, a private/],
  ['2002:7f00:1::', /6to4.*of 127\.0\.0\.1, a loopback/],
  ['2002:c0a8:101:1::1', /6to4.*of 192\.168\.1\.1, a private/],
  // The metadata endpoints, whatever range they also lie in, and when carried in IPv6.
  ['169.254.169.254', /cloud metadata/],
  ['169.254.170.2', /cloud metadata/],
  ['100.100.100.200', /cloud metadata/],
  ['168.63.129.16', /cloud metadata/],
  ['fd00:ec2::254', /cloud metadata/],
  ['fd00:ec2:0::254', /cloud metadata/],
  ['::ffff:169.254.169.254', /IPv4-mapped.*cloud metadata/],
  ['64:ff9b::a9fe:a9fe', /NAT64.*cloud metadata/],
];

const GLOBAL = [
  '93.184.215.14',
  '1.1.1.1',
  '8.8.8.8',
  '100.63.255.255', // just below 100.64.0.0/10
  '100.128.0.0', // just above it
  '172.15.255.255',
  '172.32.0.0',
  '192.0.1.1',
  '192.0.3.1',
  '192.169.0.1',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '11.0.0.0',
  '2606:4700::1',
  '2a00:1450:4001:80b::200e',
  '2001:4860:4860::8888',
  '2001:db9::1', // past 2001:db8::/32
  '::ffff:93.184.215.14',
  '64:ff9b::93.184.215.14',
  '2002:5db8:d70e::1',
];

describe('address ranges', () => {
  it('refuses every address that is not global unicast, naming its range', () => {
    for (const [address, reason] of REFUSED) {
      const verdict = classifyAddress(address);
      assert.equal(verdict.ok, false, `${address} passed`);
      if (!verdict.ok) assert.match(verdict.reason, reason, address);
    }
  });

  it('accepts global unicast addresses, including those at the edges of refused ranges', () => {
    for (const address of GLOBAL) assert.deepEqual(classifyAddress(address), { ok: true }, address);
  });

  it('refuses what is not an IP address at all (other spellings are the URL parser’s to normalise)', () => {
    for (const text of ['', 'localhost', '0177.0.0.1', '127.1', '2130706433', '[::1]', '1.2.3.4.5', '::ffff:999.0.0.1']) {
      assert.deepEqual(classifyAddress(text), { ok: false, reason: 'not an IP address' }, text);
    }
  });

  it('knows the metadata endpoints in every IPv6 form that carries them, and nothing next to them', () => {
    for (const ip of ['169.254.169.254', 'fd00:ec2::254', 'fd00:ec2::23', '::ffff:a9fe:a9fe', '::169.254.169.254', '2002:a9fe:a9fe::']) {
      assert.ok(isMetadataAddress(ip), ip);
    }
    for (const ip of ['169.254.169.253', '127.0.0.1', 'fd00:ec2::255', '93.184.215.14', 'nonsense']) assert.ok(!isMetadataAddress(ip), ip);
  });

  it('reads IPv6 in every notation to the same bytes, and unmaps ::ffff:a.b.c.d to IPv4', () => {
    const bytes = (ip: string) => Array.from(parseIp(ip)!.bytes);
    assert.deepEqual(bytes('::ffff:127.0.0.1'), bytes('0:0:0:0:0:ffff:7f00:0001'));
    assert.deepEqual(bytes('2001:db8::'), [0x20, 0x01, 0x0d, 0xb8, ...Array(12).fill(0)]);
    assert.deepEqual(bytes('1::'), bytes('1:0:0:0:0:0:0:0'));
    assert.deepEqual(bytes('::2:3'), bytes('0:0:0:0:0:0:2:3'));
    assert.deepEqual(unmapped(parseIp('::ffff:10.1.2.3')!), { family: 4, bytes: Uint8Array.from([10, 1, 2, 3]) });
    assert.equal(unmapped(parseIp('::10.1.2.3')!).family, 6);
  });
});
