import { keccak256 } from './keccak256.ts';

/** EIP-191 version 0x45 ("personal_sign") digest of the exact bytes a wallet signed. */
export function personalMessageHash(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${message.length}`);
  return keccak256(prefix, message);
}

/** Lowercase 0x address of an uncompressed (65-byte, 0x04-prefixed) secp256k1 public key. */
export function addressOfPublicKey(uncompressed: Uint8Array): string {
  const digest = keccak256(uncompressed.subarray(1));
  return `0x${Buffer.from(digest.subarray(12)).toString('hex')}`;
}
