import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, test } from 'node:test';
import { decryptKeystore, parseKeystore } from '../../src/auth/signing/keystore.ts';
import { DEMO_PRIVATE_KEY } from '../../src/demo/demo-seed.ts';
import { AppError } from '../../src/errors/app-error.ts';
import { pbkdf2Keystore, scryptKeystore, withCrypto } from '../helpers/keystores.ts';
import { newWallet } from '../helpers/wallets.ts';

const PASSWORD = 'correct horse battery staple';

async function refused(text: string, password: string, code: string, message: RegExp): Promise<void> {
  await assert.rejects(
    async () => decryptKeystore(parseKeystore(text), password),
    (error: unknown) =>
      error instanceof AppError && error.code === code && message.test(error.message) && !error.message.includes(password),
  );
}

describe('keystore v3', () => {
  test('reads the key of an ethers (scrypt) keystore and of a pbkdf2 one', async () => {
    const wallet = newWallet();
    assert.equal(await decryptKeystore(parseKeystore(await scryptKeystore(wallet, PASSWORD)), PASSWORD), wallet.privateKey);
    assert.equal(await decryptKeystore(parseKeystore(await pbkdf2Keystore(wallet, PASSWORD)), PASSWORD), wallet.privateKey);
  });

  test('the keystore of docs/signing-in.md holds the published development key under the password "development"', async () => {
    const text = await readFile(new URL('../../docs/development-wallet.keystore.json', import.meta.url), 'utf8');
    assert.equal(await decryptKeystore(parseKeystore(text), 'development'), DEMO_PRIVATE_KEY);
  });

  test('a password typed in another Unicode form opens a keystore ethers wrote (NFKC)', async () => {
    const wallet = newWallet();
    const keystore = parseKeystore(await scryptKeystore(wallet, 'p\u00e4ssword'));
    assert.equal(await decryptKeystore(keystore, 'pa\u0308ssword'), wallet.privateKey);
  });

  test('a wrong password is KEYSTORE_PASSWORD_WRONG, and the error does not repeat it', async () => {
    const text = await scryptKeystore(newWallet(), PASSWORD);
    await refused(text, 'tr0ub4dor&3', 'KEYSTORE_PASSWORD_WRONG', /Wrong password/);
    // A flipped ciphertext byte fails the same MAC: nothing is decrypted from a damaged file.
    const damaged = withCrypto(text, (c) => {
      c.ciphertext = (c.ciphertext[0] === '0' ? '1' : '0') + c.ciphertext.slice(1);
    });
    await refused(damaged, PASSWORD, 'KEYSTORE_PASSWORD_WRONG', /MAC/);
  });

  test('an "address" field naming another wallet is refused (it is outside the MAC)', async () => {
    const text = JSON.stringify({ ...JSON.parse(await pbkdf2Keystore(newWallet(), PASSWORD)), address: newWallet().address.slice(2) });
    await refused(text, PASSWORD, 'KEYSTORE_INVALID', /address/);
  });

  test('malformed and unsupported files are KEYSTORE_INVALID with the reason', async () => {
    const text = await pbkdf2Keystore(newWallet(), PASSWORD);
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      [JSON.stringify({ ...JSON.parse(text), version: 1 }), /"version" is 1/],
      [withCrypto(text, (c) => (c.kdf = 'argon2id')), /Unsupported keystore kdf "argon2id"/],
      [withCrypto(text, (c) => (c.cipher = 'aes-128-cbc')), /Unsupported keystore cipher "aes-128-cbc"/],
      [withCrypto(text, (c) => (c.kdfparams.prf = 'hmac-sha512')), /prf "hmac-sha512"/],
      [withCrypto(text, (c) => (c.cipherparams.iv = 'abcd')), /iv" must hold 16 bytes/],
      [withCrypto(text, (c) => (c.mac = 'zz')), /mac" is not hexadecimal/],
      [withCrypto(text, (c) => delete c.kdfparams), /kdfparams" is not an object/],
    ];
    for (const [file, message] of cases) {
      assert.throws(
        () => parseKeystore(file),
        (error: unknown) => error instanceof AppError && error.code === 'KEYSTORE_INVALID' && message.test(error.message),
        message.source,
      );
    }
  });

  test('a file asking for more than the bounded KDF cost is refused before any work', async () => {
    const scrypt = await scryptKeystore(newWallet(), PASSWORD);
    const pbkdf2 = await pbkdf2Keystore(newWallet(), PASSWORD);
    const cases: [string, RegExp][] = [
      // 1 GiB of memory
      [withCrypto(scrypt, (c) => Object.assign(c.kdfparams, { n: 2 ** 20, r: 8, p: 1 })), /1024 MiB/],
      // 16 MiB but n·r·p = 2^27: minutes of work
      [withCrypto(scrypt, (c) => Object.assign(c.kdfparams, { n: 2 ** 14, r: 8, p: 1024 })), /n·r·p/],
      [withCrypto(scrypt, (c) => Object.assign(c.kdfparams, { n: 1000 })), /power of two/],
      [
        withCrypto(pbkdf2, (c) => Object.assign(c.kdfparams, { c: 1_000_000_000 })),
        /"kdfparams.c" must be a whole number from 1 to 10000000/,
      ],
    ];
    for (const [file, message] of cases) {
      const started = performance.now();
      assert.throws(
        () => parseKeystore(file),
        (error: unknown) => error instanceof AppError && error.code === 'KEYSTORE_INVALID' && message.test(error.message),
        message.source,
      );
      assert.ok(performance.now() - started < 100, 'refused without deriving');
    }
  });
});
