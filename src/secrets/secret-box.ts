import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';

/**
 * Secrets at rest (docs/events.md, "Secrets at rest"): AES-256-GCM under SECRETS_KEY. A sealed
 * value names the key it was sealed under (the first 8 hex digits of the key's SHA-256), so that a
 * service started with another key says so instead of failing to authenticate the ciphertext; and
 * its context (what the value is, and whose: `webhook-secret:whk_…`) is the additional data, so that
 * a sealed value copied into another row or column does not open there.
 */
const VERSION = 'v1';

export class SecretBox {
  readonly keyId: string;

  constructor(private readonly key: Uint8Array) {
    if (key.length !== 32) throw new Error('A secrets key is 32 bytes');
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 8);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${this.keyId}:${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const [version, keyId, payload] = sealed.split(':');
    if (version !== VERSION || keyId === undefined || payload === undefined) throw unreadable(`it is not a sealed value of this release`);
    if (keyId !== this.keyId) {
      throw unreadable(
        `it was sealed under another SECRETS_KEY (key id ${keyId}; this service's is ${this.keyId}): start it with that key`,
      );
    }
    const bytes = Buffer.from(payload, 'base64url');
    if (bytes.length < 28) throw unreadable('it is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString('utf8');
    } catch {
      throw unreadable('it does not authenticate (altered, or moved from another row)');
    }
  }
}

function unreadable(why: string): AppError {
  return new AppError('SERVICE_UNAVAILABLE', `A secret kept by the service cannot be read: ${why}`);
}
