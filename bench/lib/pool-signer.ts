import { createRequire } from 'node:module';
import { privateKeyToAccount } from 'viem/accounts';
import { personalMessageHash } from '../../src/auth/signature/personal-message-hash.ts';

interface NativeSigner {
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
}

/**
 * personal_sign in bulk for pre-signed pools: tens of thousands of messages a run, which viem
 * (pure JS, ~1 ms each) would take minutes to sign. The native secp256k1 binding signs the same
 * EIP-191 digest (RFC 6979, low s); the first signature is checked against viem's.
 */
export class PoolSigner {
  private readonly native: NativeSigner;
  private readonly key: Uint8Array;
  readonly address: `0x${string}`;

  private constructor(privateKey: `0x${string}`) {
    this.native = createRequire(import.meta.url)('secp256k1/bindings') as NativeSigner;
    this.key = Buffer.from(privateKey.slice(2), 'hex');
    this.address = privateKeyToAccount(privateKey).address;
  }

  static async create(privateKey: `0x${string}`): Promise<PoolSigner> {
    const signer = new PoolSigner(privateKey);
    const probe = 'pool signer self-check';
    const expected = await privateKeyToAccount(privateKey).signMessage({ message: probe });
    if (signer.sign(probe) !== expected) throw new Error('the native pool signer disagrees with viem');
    return signer;
  }

  sign(message: string): string {
    const { signature, recid } = this.native.ecdsaSign(personalMessageHash(Buffer.from(message, 'utf8')), this.key);
    return `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}`;
  }
}
