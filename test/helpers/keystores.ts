import { createCipheriv, pbkdf2Sync, randomBytes, randomUUID } from 'node:crypto';
import { decryptKeystoreJson, encryptKeystoreJson, keccak256 } from 'ethers';
import type { TestWallet } from './wallets.ts';

/** A keystore v3 as ethers writes it (scrypt), at a small cost so that tests stay fast. */
export function scryptKeystore(wallet: TestWallet, password: string, n = 1024): Promise<string> {
  return encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, password, { scrypt: { N: n } });
}

/**
 * A pbkdf2 keystore v3 (as geth's early versions and pyethereum wrote them; ethers reads but does not
 * write them), built here by the Web3 Secret Storage definition and checked with ethers' reader, so
 * that the file does not depend on the code under test.
 */
export async function pbkdf2Keystore(wallet: TestWallet, password: string, iterations = 1000): Promise<string> {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = pbkdf2Sync(Buffer.from(password.normalize('NFKC'), 'utf8'), salt, iterations, 32, 'sha256');
  const cipher = createCipheriv('aes-128-ctr', derived.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(Buffer.from(wallet.privateKey.slice(2), 'hex')), cipher.final()]);
  const mac = keccak256(Buffer.concat([derived.subarray(16, 32), ciphertext])).slice(2);
  const json = JSON.stringify({
    version: 3,
    id: randomUUID(),
    address: wallet.address.slice(2).toLowerCase(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: iv.toString('hex') },
      ciphertext: ciphertext.toString('hex'),
      kdf: 'pbkdf2',
      kdfparams: { c: iterations, dklen: 32, prf: 'hmac-sha256', salt: salt.toString('hex') },
      mac,
    },
  });
  const read = await decryptKeystoreJson(json, password);
  if (read.privateKey !== wallet.privateKey) throw new Error('ethers reads another key from the pbkdf2 keystore built for the test');
  return json;
}

/** A keystore with one field of its crypto section replaced (a damaged, foreign or hostile file). */
export function withCrypto(json: string, change: (crypto: Record<string, any>) => void): string {
  const file = JSON.parse(json);
  // ethers writes "Crypto", as early geth did; the definition says "crypto".
  change(file.crypto ?? file.Crypto);
  return JSON.stringify(file);
}
