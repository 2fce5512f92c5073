import { randomBytes } from 'node:crypto';
import type { NonceRecords } from '../store/types.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** EIP-4361 nonces are at least 8 alphanumerics; 22 gives about 131 bits. */
export function randomNonce(length = 22): string {
  let nonce = '';
  // 248 is the largest multiple of 62 below 256: rejecting above it keeps every character equally likely.
  while (nonce.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && nonce.length < length) nonce += ALPHANUMERIC[byte % 62];
    }
  }
  return nonce;
}

export async function issueNonce(
  store: Pick<NonceRecords, 'saveNonce'>,
  ttlSeconds: number,
  now: number,
): Promise<{ nonce: string; expiresAt: number }> {
  const nonce = randomNonce();
  const expiresAt = now + ttlSeconds * 1000;
  await store.saveNonce(nonce, expiresAt);
  return { nonce, expiresAt };
}
