import { keccak_256 } from '@noble/hashes/sha3.js';

/**
 * The EIP-4361 text the client signs. The service's own formatter (src/auth/siwe) checks every
 * field against the grammar but loads native keccak through node:module, so it cannot run in a
 * page; this one builds only the fields the client sets, and the tests parse its output with the
 * service's strict parser so that the two cannot drift apart.
 */
export interface SignInMessageFields {
  domain: string;
  address: string;
  statement: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime: Date;
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * EIP-55 checksum case. EIP-4361 requires it, and wallets answer eth_accounts in lowercase
 * (MetaMask does), so the address is always re-cased before it goes into a message.
 */
export function toChecksumAddress(address: string): `0x${string}` {
  if (!HEX_ADDRESS.test(address)) throw new TypeError(`Not an Ethereum address: ${JSON.stringify(address)}`);
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const byte = hash[i >> 1]!;
    const nibble = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  return out as `0x${string}`;
}

/** RFC 3339 in UTC, with milliseconds unless there are none, as the grammar's date-time accepts. */
function timestamp(date: Date): string {
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

export function formatSignInMessage(fields: SignInMessageFields): string {
  return [
    `${fields.domain} wants you to sign in with your Ethereum account:`,
    toChecksumAddress(fields.address),
    '',
    fields.statement,
    '',
    `URI: ${fields.uri}`,
    'Version: 1',
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${timestamp(fields.issuedAt)}`,
    `Expiration Time: ${timestamp(fields.expirationTime)}`,
  ].join('\n');
}
