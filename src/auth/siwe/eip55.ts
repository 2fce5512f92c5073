import { BoundedCache } from '../bounded-cache.ts';
import { keccak256 } from '../signature/keccak256.ts';
import { SiweParseError } from './siwe-error.ts';

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export function isHexAddress(address: string): boolean {
  return HEX_ADDRESS.test(address);
}

/** Checksum forms already computed: a service sees few distinct admin wallets, each many times. */
const checksummed = new BoundedCache<string>(10_000);

/** EIP-55: a letter is upper case when the matching nibble of keccak-256(lowercase hex) is 8 or more. */
export function toEip55(address: string): string {
  if (typeof address !== 'string' || !isHexAddress(address)) {
    throw new SiweParseError('An Ethereum address is "0x" followed by 40 hexadecimal digits', 'address');
  }
  const hex = address.slice(2).toLowerCase();
  const known = checksummed.get(hex, 0);
  if (known !== undefined) return known;
  const hash = keccak256(Buffer.from(hex, 'latin1'));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const byte = hash[i >> 1]!;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  checksummed.set(hex, out, Infinity);
  return out;
}

/**
 * True only for the exact checksum form. EIP-55 itself tolerates all-lower/all-upper addresses as
 * "unchecksummed", but EIP-4361 requires the checksum and the vectors reject an all-lowercase one.
 */
export function isEip55Checksummed(address: string): boolean {
  return typeof address === 'string' && isHexAddress(address) && toEip55(address) === address;
}
