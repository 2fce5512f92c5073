import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { FailureLimiter } from '../../auth/limits/failure-limiter.ts';
import type { Authentication, WalletAuthenticator, WalletHeaders } from '../../auth/wallet-authenticator.ts';
import { AppError, isAppError } from '../../errors/app-error.ts';
import { clientAddress } from '../server/client-address.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for routes that need a signed-in admin. */
    requireWallet: preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    authentication: Authentication | null;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function walletHeaders(request: FastifyRequest): WalletHeaders {
  return {
    wal: header(request, 'x-wal'),
    sig: header(request, 'x-sig'),
    mes: header(request, 'x-mes'),
    walletAddress: header(request, 'x-wallet-address'),
  };
}

/** The signed-in admin of a request that went through requireWallet. */
export function authenticationOf(request: FastifyRequest): Authentication {
  if (request.authentication === null) throw new AppError('INTERNAL_ERROR', 'Route used the principal without requireWallet');
  return request.authentication;
}

/**
 * The address of the request's client, refused (429) while it is over AUTH_FAIL_LIMIT failures this
 * minute: what every request that presents a credential (a signature, an invitation's token) passes first.
 */
export async function unblockedClient(request: FastifyRequest, failures: Pick<FailureLimiter, 'blockedFor'>): Promise<string> {
  const client = clientAddress(request);
  // Nobody is waiting for an answer any more.
  if (client === undefined) throw new AppError('HTTP_MALFORMED', 'The connection closed before the request was handled');
  const retryAfterSeconds = await failures.blockedFor(client, Date.now());
  if (retryAfterSeconds !== undefined) {
    throw new AppError(
      'RATE_LIMITED',
      `Too many failed sign-ins from this address (for IPv6, from its network); try again in ${retryAfterSeconds} s`,
      {
        retryAfterSeconds,
      },
    );
  }
  return client;
}

async function walletAuth(app: FastifyInstance, options: { authenticator: WalletAuthenticator; failures: FailureLimiter }): Promise<void> {
  const { authenticator, failures } = options;
  app.decorateRequest('authentication', null);
  app.decorate('requireWallet', async function requireWallet(request: FastifyRequest) {
    const client = await unblockedClient(request, failures);
    try {
      request.authentication = await authenticator.authenticate(walletHeaders(request), client);
    } catch (error) {
      if (isAppError(error) && error.status === 401) await failures.recordFailure(client, Date.now());
      throw error;
    }
  });
}

export default fp(walletAuth, { name: 'wallet-auth' });
