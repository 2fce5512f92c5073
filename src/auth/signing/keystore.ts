import { createDecipheriv, pbkdf2, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { AppError } from '../../errors/app-error.ts';
import { keccak256 } from '../signature/keccak256.ts';
import { addressOfPublicKey } from '../signature/personal-message-hash.ts';

/**
 * Ethereum JSON keystore v3 (Web3 Secret Storage), as geth, Foundry (`cast wallet`), MetaMask exports,
 * ethers and web3 write it. Only what these write is read: scrypt or pbkdf2 (hmac-sha256), aes-128-ctr.
 *
 * A keystore names its own key-derivation cost, so a hostile or corrupt file could ask for minutes of
 * work or gigabytes of memory. The bounds sit above every tool's defaults (geth "standard" scrypt
 * N=2^18 r=8 p=1 = 256 MiB, about 1 s here; ethers N=2^17; geth "light" N=2^12 p=6; pbkdf2 c=262144):
 */
export const KDF_BOUNDS = {
  /** scrypt memory, 128·N·r bytes: geth's standard setting exactly. */
  scryptMemoryBytes: 256 * 1024 * 1024,
  /** scrypt work, N·r·p: twice geth's standard setting (about 2 s here). */
  scryptWork: 2 ** 22,
  /** pbkdf2-hmac-sha256 iterations: about 2.5 s here. */
  pbkdf2Iterations: 10_000_000,
  /** Salt bytes: tools write 32. */
  saltBytes: 1024,
} as const;

/** A keystore file is about 500 bytes; anything far larger is not one. */
export const KEYSTORE_MAX_BYTES = 64 * 1024;

const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

const scryptAsync = promisify(scrypt) as (password: Buffer, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
const pbkdf2Async = promisify(pbkdf2);

function invalid(reason: string): AppError {
  return new AppError('KEYSTORE_INVALID', `The keystore is not a usable JSON keystore v3: ${reason}`);
}

function record(value: unknown, name: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(`"${name}" is not an object`);
  return value as Record<string, unknown>;
}

function hex(value: unknown, name: string, bytes?: number): Buffer {
  if (typeof value !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(value)) throw invalid(`"${name}" is not hexadecimal`);
  const decoded = Buffer.from(value.replace(/^0x/, ''), 'hex');
  if (bytes !== undefined && decoded.length !== bytes) throw invalid(`"${name}" must hold ${bytes} bytes, it holds ${decoded.length}`);
  return decoded;
}

function whole(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`"${name}" must be a whole number from ${min} to ${max}`);
  }
  return value;
}

type DeriveKey = (password: Buffer) => Promise<Buffer>;

function keyDerivation(kdf: unknown, params: Record<string, unknown>): DeriveKey {
  const dklen = whole(params.dklen, 'kdfparams.dklen', 32, 64);
  const salt = hex(params.salt, 'kdfparams.salt');
  if (salt.length > KDF_BOUNDS.saltBytes) throw invalid(`"kdfparams.salt" is longer than ${KDF_BOUNDS.saltBytes} bytes`);
  if (kdf === 'scrypt') {
    const n = whole(params.n, 'kdfparams.n', 2, 2 ** 30);
    const r = whole(params.r, 'kdfparams.r', 1, 1024);
    const p = whole(params.p, 'kdfparams.p', 1, 1024);
    if ((n & (n - 1)) !== 0) throw invalid('"kdfparams.n" must be a power of two');
    const memory = 128 * n * r;
    if (memory > KDF_BOUNDS.scryptMemoryBytes) {
      throw invalid(
        `scrypt would need ${memory / 2 ** 20} MiB (128·n·r); at most ${KDF_BOUNDS.scryptMemoryBytes / 2 ** 20} MiB is allowed`,
      );
    }
    if (n * r * p > KDF_BOUNDS.scryptWork) throw invalid(`scrypt's n·r·p is ${n * r * p}; at most ${KDF_BOUNDS.scryptWork} is allowed`);
    // Node refuses scrypt above maxmem (32 MiB by default); the bound above is the real limit.
    return (password) => scryptAsync(password, salt, dklen, { N: n, r, p, maxmem: memory + 1024 * 1024 });
  }
  if (kdf === 'pbkdf2') {
    if (params.prf !== 'hmac-sha256')
      throw new AppError('KEYSTORE_INVALID', `Unsupported keystore pbkdf2 prf ${JSON.stringify(params.prf)}; only hmac-sha256 is`);
    const c = whole(params.c, 'kdfparams.c', 1, KDF_BOUNDS.pbkdf2Iterations);
    return (password) => pbkdf2Async(password, salt, c, dklen, 'sha256');
  }
  throw new AppError('KEYSTORE_INVALID', `Unsupported keystore kdf ${JSON.stringify(kdf)}; scrypt and pbkdf2 are`);
}

/** A keystore read and checked, not yet decrypted: a damaged file is reported before a password is asked. */
export interface Keystore {
  derive: DeriveKey;
  iv: Buffer;
  ciphertext: Buffer;
  mac: Buffer;
  address?: string;
}

export function parseKeystore(text: string): Keystore {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('it is not JSON');
  }
  const file = record(json, 'the file');
  if (file.version !== 3) throw invalid(`"version" is ${JSON.stringify(file.version)}, not 3`);
  // Early geth and MyEtherWallet files spell it "Crypto".
  const crypto = record(file.crypto ?? file.Crypto, 'crypto');
  if (crypto.cipher !== 'aes-128-ctr') {
    throw new AppError('KEYSTORE_INVALID', `Unsupported keystore cipher ${JSON.stringify(crypto.cipher)}; only aes-128-ctr is`);
  }
  const derive = keyDerivation(crypto.kdf, record(crypto.kdfparams, 'crypto.kdfparams'));
  const address = typeof file.address === 'string' ? file.address : undefined;
  return {
    derive,
    iv: hex(record(crypto.cipherparams, 'crypto.cipherparams').iv, 'cipherparams.iv', 16),
    ciphertext: hex(crypto.ciphertext, 'crypto.ciphertext', 32),
    mac: hex(crypto.mac, 'crypto.mac', 32),
    ...(address === undefined ? {} : { address }),
  };
}

/**
 * The private key (0x + 64 hex digits) in a keystore v3 file. The MAC is checked, in constant time,
 * before anything is decrypted: a wrong password is told apart from a damaged file and never yields
 * a wrong key. The password appears in no error.
 */
export async function decryptKeystore(keystore: Keystore, password: string): Promise<`0x${string}`> {
  // ethers normalises passwords to NFKC before deriving, geth uses them as typed: try both.
  const candidates = [...new Set([password, password.normalize('NFKC')])];
  for (const candidate of candidates) {
    const derived = await keystore.derive(Buffer.from(candidate, 'utf8'));
    const mac = Buffer.from(keccak256(derived.subarray(16, 32), keystore.ciphertext));
    if (!timingSafeEqual(mac, keystore.mac)) continue;
    const decipher = createDecipheriv('aes-128-ctr', derived.subarray(0, 16), keystore.iv);
    const key = Buffer.concat([decipher.update(keystore.ciphertext), decipher.final()]);
    const scalar = BigInt(`0x${key.toString('hex')}`);
    if (scalar === 0n || scalar >= SECP256K1_ORDER) throw invalid('the decrypted key is not a secp256k1 private key');
    // The address field is optional and outside the MAC: a file whose field names another wallet was edited.
    const address = addressOfPublicKey(secp256k1.getPublicKey(key, false));
    if (keystore.address !== undefined && keystore.address.replace(/^0x/, '').toLowerCase() !== address.slice(2)) {
      throw invalid(`its "address" field is not the address of its key (${address})`);
    }
    return `0x${key.toString('hex')}`;
  }
  throw new AppError('KEYSTORE_PASSWORD_WRONG', 'Wrong password for this keystore (its MAC does not match)');
}
