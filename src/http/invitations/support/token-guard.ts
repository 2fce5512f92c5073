import type { FastifyRequest } from 'fastify';
import type { FailureLimiter } from '../../../auth/limits/failure-limiter.ts';
import { isAppError } from '../../../errors/app-error.ts';
import { unblockedClient } from '../../auth/wallet-auth.ts';

/**
 * Runs `open`, the look-up of the invitation a request's token names (a preview, an acceptance). A
 * token is a credential like a signature: a client over AUTH_FAIL_LIMIT failures is refused first
 * (429), and a token that opens no invitation (404 INVITATION_NOT_FOUND) counts as a failure. A used,
 * revoked or expired invitation's token is a real one: refused, but not counted.
 */
export async function openedByToken<T>(
  request: FastifyRequest,
  failures: Pick<FailureLimiter, 'blockedFor' | 'recordFailure'>,
  open: () => Promise<T>,
): Promise<T> {
  const client = await unblockedClient(request, failures);
  try {
    return await open();
  } catch (error) {
    if (isAppError(error) && error.code === 'INVITATION_NOT_FOUND') await failures.recordFailure(client, Date.now());
    throw error;
  }
}
