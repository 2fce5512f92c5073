import { AppError } from '../../errors/app-error.ts';
import type { FailureLimiter } from './failure-limiter.ts';

/** Contract-wallet checks of one client that may be asking the chain at once, on one instance. */
export const CHAIN_CHECKS_PER_CLIENT = 2;

/**
 * What one client may make the chain do. A contract-wallet check of a new signature is an eth_call
 * whose content the client chooses (an EIP-6492-wrapped signature passes every cache), so each is
 * let through only while the client is within its failed-sign-in limit (AUTH_FAIL_LIMIT, which the
 * 401 of a refused check counts like any other) and while it has fewer than `perClient` checks
 * under way. Without the second bound a flood sent all at once would pass the limit before its
 * first failure is counted, and would fill the service-wide RPC gate (AUTH_RPC_CONCURRENCY), so
 * that other clients' checks were turned away with 503. Beyond either: 429 RATE_LIMITED, no call.
 * Clients are keyed as their failures are (`keyOf`: an IPv6 network counts as one client).
 */
export class ChainCheckAllowance {
  private readonly underWay = new Map<string, number>();

  constructor(
    private readonly failures: Pick<FailureLimiter, 'blockedFor'>,
    private readonly keyOf: (client: string) => string,
    private readonly perClient = CHAIN_CHECKS_PER_CLIENT,
  ) {}

  /** Resolves with the check's release (call it once the call is over) when `client` may ask the chain; else RATE_LIMITED. */
  async admit(client: string, now: number): Promise<() => void> {
    const key = this.keyOf(client);
    const held = this.underWay.get(key) ?? 0;
    if (held >= this.perClient) {
      throw new AppError(
        'RATE_LIMITED',
        `Too many contract-wallet checks under way from this address (at most ${this.perClient} at once); try again in 1 s`,
        { retryAfterSeconds: 1 },
      );
    }
    // Held before the limiter is asked, so that checks arriving meanwhile count this one.
    this.underWay.set(key, held + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.underWay.get(key) ?? 1) - 1;
      if (left > 0) this.underWay.set(key, left);
      else this.underWay.delete(key);
    };
    try {
      const retryAfterSeconds = await this.failures.blockedFor(client, now);
      if (retryAfterSeconds !== undefined) {
        throw new AppError(
          'RATE_LIMITED',
          `Too many failed sign-ins from this address (for IPv6, from its network); try again in ${retryAfterSeconds} s`,
          { retryAfterSeconds },
        );
      }
    } catch (error) {
      release();
      throw error;
    }
    return release;
  }
}
