import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FailureLimiter } from '../../src/auth/limits/failure-limiter.ts';
import { failureKeyOf, keyedByNetwork } from '../../src/auth/limits/network-key.ts';

describe('the key failed sign-ins are counted under', () => {
  test('an IPv4 address is its own key', () => {
    for (const address of ['10.1.2.3', '192.0.2.200', '127.0.0.1']) assert.equal(failureKeyOf(address, 64), address);
    assert.notEqual(failureKeyOf('10.1.2.3', 64), failureKeyOf('10.1.2.4', 64), 'IPv4 stays per address');
  });

  test('an IPv4-mapped IPv6 address counts as the IPv4 address, in any spelling', () => {
    for (const mapped of [
      '::ffff:10.1.2.3',
      '::FFFF:10.1.2.3',
      '::ffff:a01:203',
      '0:0:0:0:0:ffff:10.1.2.3',
      '0000:0000:0000:0000:0000:ffff:0a01:0203',
    ])
      for (const prefix of [1, 64, 128]) assert.equal(failureKeyOf(mapped, prefix), '10.1.2.3', `${mapped} /${prefix}`);
  });

  test('an IPv6 address counts for its /64 by default: every spelling of one network is one key', () => {
    const key = failureKeyOf('2001:db8:1:2::1', 64);
    assert.equal(key, '2001:db8:1:2::/64');
    for (const same of [
      '2001:db8:1:2::ffff',
      '2001:db8:1:2:aaaa:bbbb:cccc:dddd',
      '2001:0DB8:0001:0002:0000:0000:0000:0001',
      '2001:db8:1:2:0:0:0:1',
      '2001:db8:1:2::10.0.0.1',
      '2001:db8:1:2::9%eth0',
    ])
      assert.equal(failureKeyOf(same, 64), key, same);
    for (const other of ['2001:db8:1:3::1', '2001:db8:2:2::1', '2001:db9:1:2::1', '::1'])
      assert.notEqual(failureKeyOf(other, 64), key, other);
  });

  test('the prefix length is configurable: 128 is one address (normalised), shorter ones wider networks', () => {
    assert.equal(failureKeyOf('2001:0DB8:0:0:0:0:0:0001', 128), '2001:db8::1/128');
    assert.equal(failureKeyOf('2001:db8::1', 128), failureKeyOf('2001:db8:0::0:1', 128));
    assert.notEqual(failureKeyOf('2001:db8::1', 128), failureKeyOf('2001:db8::2', 128));
    assert.equal(failureKeyOf('2001:db8:abcd:ef01::1', 48), '2001:db8:abcd::/48');
    assert.equal(failureKeyOf('2001:db8:abcd:ef01::1', 56), '2001:db8:abcd:ef00::/56');
    assert.equal(failureKeyOf('2001:db8:abcd:ef01::1', 60), '2001:db8:abcd:ef00::/60');
    assert.equal(failureKeyOf('2001:db8:abcd:ef0f::1', 61), '2001:db8:abcd:ef08::/61');
    assert.equal(failureKeyOf('ffff:ffff::', 1), '8000::/1');
    assert.equal(failureKeyOf('7fff::', 1), '::/1');
  });

  test('a link-local zone is not part of the key; anything that is no address is kept as it is', () => {
    assert.equal(failureKeyOf('fe80::1%eth0', 64), 'fe80::/64');
    assert.equal(failureKeyOf('fe80::1%eth1', 128), 'fe80::1/128');
    for (const odd of ['unknown', '', 'not:an:address', '10.1.2.3.4']) assert.equal(failureKeyOf(odd, 64), odd);
  });

  test('the limiter keyed by network passes the key, not the address, to the counts', async () => {
    const seen: string[] = [];
    const inner: FailureLimiter = {
      blockedFor: async (client) => {
        seen.push(`blocked? ${client}`);
        return undefined;
      },
      recordFailure: async (client) => {
        seen.push(`failed ${client}`);
      },
      close: async () => {},
    };
    const limiter = keyedByNetwork(inner, 64);
    await limiter.blockedFor('2001:db8:1:2::1', 0);
    await limiter.recordFailure('2001:db8:1:2::2', 0);
    await limiter.recordFailure('::ffff:10.0.0.1', 0);
    assert.deepEqual(seen, ['blocked? 2001:db8:1:2::/64', 'failed 2001:db8:1:2::/64', 'failed 10.0.0.1']);
  });
});
