import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { keccak256, keccakImplementation } from '../../src/auth/signature/keccak256.ts';
import { toEip55 } from '../../src/auth/siwe/eip55.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('keccak256', () => {
  test('uses the native binding on this platform (it ships prebuilt for linux-x64)', {
    skip: process.platform !== 'linux' || process.arch !== 'x64' ? 'no prebuilt binary expected here' : false,
  }, () => {
    assert.equal(keccakImplementation, 'native');
  });

  test('known answers: the empty input and an EIP-55 example', () => {
    assert.equal(hex(keccak256(new Uint8Array())), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    // From EIP-55's test cases: the checksum is made of keccak-256 nibbles.
    assert.equal(toEip55('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'), '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    assert.equal(toEip55('0xFB6916095CA1DF60BB79CE92CE3EA74C37C5D359'), '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359');
  });

  test('agrees with @noble/hashes on 2,000 random inputs of 0 to 1,000 bytes, whole or in parts', () => {
    for (let i = 0; i < 2000; i++) {
      const data = randomBytes(Math.floor(Math.random() * 1001));
      const cut = Math.floor(Math.random() * (data.length + 1));
      const expected = hex(keccak_256(data));
      assert.equal(hex(keccak256(data)), expected);
      // Parts as plain Uint8Array views at an offset, as callers pass them.
      const copy = new Uint8Array(data.length + 7);
      copy.set(data, 7);
      assert.equal(hex(keccak256(copy.subarray(7, 7 + cut), copy.subarray(7 + cut))), expected);
    }
  });
});
