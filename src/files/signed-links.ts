import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';

/**
 * Links that download without wallet headers, as S3 presigned URLs do: the path and an expiry,
 * signed with HMAC-SHA256 under a secret every instance shares.
 */
export class LinkSigner {
  constructor(
    private readonly secret: string,
    private readonly ttlSeconds: number,
  ) {}

  private signature(path: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`GET\n${path}\n${expires}`).digest('base64url');
  }

  /** Query string (without '?') that makes `path` downloadable until now + ttl. */
  sign(path: string, now: number): string {
    const expires = Math.floor(now / 1000) + this.ttlSeconds;
    return `expires=${expires}&signature=${this.signature(path, expires)}`;
  }

  /** Throws LINK_INVALID (403) unless the link was signed here for this path and has not expired. */
  verify(path: string, expires: string | undefined, signature: string | undefined, now: number): void {
    if (expires === undefined || signature === undefined || !/^\d{1,12}$/.test(expires)) {
      throw new AppError('LINK_INVALID', 'The signed link is incomplete');
    }
    const expected = Buffer.from(this.signature(path, Number(expires)));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new AppError('LINK_INVALID', 'The signed link was altered or not signed by this service');
    }
    if (Number(expires) * 1000 <= now) {
      throw new AppError('LINK_INVALID', 'The signed link has expired; restore or ask for a new one');
    }
  }
}
