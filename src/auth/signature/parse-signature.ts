import { AppError } from '../../errors/app-error.ts';

/** secp256k1 group order halved: an s above it is the malleable twin of a canonical signature. */
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export interface RecoverableSignature {
  /** r ‖ s, 64 bytes. */
  compact: Uint8Array;
  recovery: 0 | 1;
}

const HEX_SIGNATURE = /^0x[0-9a-fA-F]*$/;

export function isHexSignature(value: string): boolean {
  return HEX_SIGNATURE.test(value) && value.length % 2 === 0;
}

/**
 * Parses a 65-byte `r ‖ s ‖ v` signature as wallets produce for personal_sign. Refuses what a
 * wallet never produces (high s, r or s out of range, v other than 0/1/27/28) so that one
 * signed message has exactly one accepted signature.
 */
export function parseRecoverableSignature(value: string): RecoverableSignature {
  if (!isHexSignature(value)) {
    throw new AppError('AUTH_SIGNATURE_MALFORMED', 'X-SIG must be 0x followed by an even number of hexadecimal digits');
  }
  const bytes = Buffer.from(value.slice(2), 'hex');
  if (bytes.length !== 65) {
    throw new AppError('AUTH_SIGNATURE_MALFORMED', `X-SIG must hold 65 bytes (r, s, v); it holds ${bytes.length}`);
  }
  const r = BigInt(`0x${bytes.subarray(0, 32).toString('hex')}`);
  const s = BigInt(`0x${bytes.subarray(32, 64).toString('hex')}`);
  if (r === 0n || r >= ORDER || s === 0n || s >= ORDER) {
    throw new AppError('AUTH_SIGNATURE_MALFORMED', 'X-SIG has r or s outside the secp256k1 range');
  }
  if (s > HALF_ORDER) {
    throw new AppError('AUTH_SIGNATURE_MALFORMED', 'X-SIG is not canonical (high s); sign again with a standard wallet');
  }
  const v = bytes[64]!;
  const recovery = v >= 27 ? v - 27 : v;
  if (recovery !== 0 && recovery !== 1) {
    throw new AppError('AUTH_SIGNATURE_MALFORMED', `X-SIG has recovery byte ${v}; expected 27, 28, 0 or 1`);
  }
  return { compact: new Uint8Array(bytes.subarray(0, 64)), recovery };
}
