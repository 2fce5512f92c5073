import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

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

/** The service_secrets name of the key that signs nonces. */
export const NONCE_KEY_NAME = 'auth-nonce-key';

// A nonce is hex (alphanumeric, as EIP-4361 asks): its expiry in Unix seconds, 64 random bits, and
// 96 bits of HMAC-SHA256 over both under the key every instance shares.
const EXPIRY_HEX = 8;
const RANDOM_HEX = 16;
const MAC_HEX = 24;
const SIGNED_NONCE = new RegExp(`^[0-9a-f]{${EXPIRY_HEX + RANDOM_HEX + MAC_HEX}}$`);

export type NonceCheck = { valid: true; expiresAt: number } | { valid: false; reason: 'not-issued' | 'expired' };

/**
 * Nonces that the service can recognise as its own without having stored them: issuing one writes
 * nothing, so GET /api/auth/nonce costs an HMAC however often it is called (it wrote a row per call,
 * unauthenticated, before). Only a message that uses one, with a valid signature, leaves a row: the
 * claim that keeps any other message from using the same nonce.
 */
export class SignedNonces {
  constructor(private readonly key: Buffer) {}

  issue(now: number, ttlSeconds: number): { nonce: string; expiresAt: number } {
    const expirySeconds = Math.ceil(now / 1000) + ttlSeconds;
    const body = expirySeconds.toString(16).padStart(EXPIRY_HEX, '0') + randomBytes(RANDOM_HEX / 2).toString('hex');
    return { nonce: body + this.mac(body), expiresAt: expirySeconds * 1000 };
  }

  check(nonce: string, now: number): NonceCheck {
    if (!SIGNED_NONCE.test(nonce)) return { valid: false, reason: 'not-issued' };
    const body = nonce.slice(0, EXPIRY_HEX + RANDOM_HEX);
    const given = Buffer.from(nonce.slice(EXPIRY_HEX + RANDOM_HEX), 'hex');
    if (!timingSafeEqual(given, Buffer.from(this.mac(body), 'hex'))) return { valid: false, reason: 'not-issued' };
    const expiresAt = Number.parseInt(body.slice(0, EXPIRY_HEX), 16) * 1000;
    return expiresAt > now ? { valid: true, expiresAt } : { valid: false, reason: 'expired' };
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(`wallet-admin nonce:${body}`).digest('hex').slice(0, MAC_HEX);
  }
}

/** A fresh key for SignedNonces, as stored in service_secrets. */
export const newNonceKey = (): string => randomBytes(32).toString('hex');
