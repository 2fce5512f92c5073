import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { FailureLimiter } from '../../auth/limits/failure-limiter.ts';
import type { Authentication, WalletAuthenticator, WalletHeaders } from '../../auth/wallet-authenticator.ts';
import { AppError, isAppError } from '../../errors/app-error.ts';
import { clientAddress } from '../server/client-address.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for routes that need a signed-in admin. */
    requireWallet: preHandlerHookHandler;
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

/** The address of the request's client; HTTP_MALFORMED once the connection is gone (nobody waits for an answer any more). */
function clientOf(request: FastifyRequest): string {
  const client = clientAddress(request);
  if (client === undefined) throw new AppError('HTTP_MALFORMED', 'The connection closed before the request was handled');
  return client;
}

/** RATE_LIMITED, when the client is over AUTH_FAIL_LIMIT failures this minute. */
function refusalAfter(retryAfterSeconds: number | undefined): AppError | undefined {
  if (retryAfterSeconds === undefined) return undefined;
  return new AppError(
    'RATE_LIMITED',
    `Too many failed sign-ins from this address (for IPv6, from its network); try again in ${retryAfterSeconds} s`,
    {
      retryAfterSeconds,
    },
  );
}

/**
 * The address of the request's client, refused (429) while it is over AUTH_FAIL_LIMIT failures this
 * minute: what every request that presents a credential (a signature, an invitation's token) passes first.
 */
export async function unblockedClient(request: FastifyRequest, failures: Pick<FailureLimiter, 'blockedFor'>): Promise<string> {
  const client = clientOf(request);
  const refusal = refusalAfter(await failures.blockedFor(client, Date.now()));
  if (refusal !== undefined) throw refusal;
  return client;
}

type Done = (error?: Error) => void;

async function walletAuth(app: FastifyInstance, options: { authenticator: WalletAuthenticator; failures: FailureLimiter }): Promise<void> {
  const { authenticator, failures } = options;
  app.decorateRequest('authentication', null);

  /** The credential's check once the client is known not to be blocked; a failed one (401) counts against the client. */
  function authenticate(request: FastifyRequest, client: string, done: Done): void {
    const failed = (error: unknown) => {
      if (isAppError(error) && error.status === 401) failures.recordFailure(client, Date.now()).then(() => done(error), done);
      else done(error as Error);
    };
    let authentication: ReturnType<WalletAuthenticator['authenticateNow']>;
    try {
      authentication = authenticator.authenticateNow(walletHeaders(request), client);
    } catch (error) {
      failed(error);
      return;
    }
    if (authentication instanceof Promise) {
      authentication.then((known) => {
        request.authentication = known;
        done();
      }, failed);
      return;
    }
    request.authentication = authentication;
    done();
  }

  // A callback hook, as unblockedClient and then authenticate, without a promise where nothing is
  // awaited: a signed-in request whose credential is in use needs none (bench: auth-warm).
  app.decorate('requireWallet', function requireWallet(request: FastifyRequest, _reply: FastifyReply, done: Done) {
    let client: string;
    let blocked: ReturnType<FailureLimiter['blockedFor']>;
    try {
      client = clientOf(request);
      blocked = failures.blockedFor(client, Date.now());
    } catch (error) {
      done(error as Error);
      return;
    }
    const next = (retryAfterSeconds: number | undefined) => {
      const refusal = refusalAfter(retryAfterSeconds);
      if (refusal !== undefined) done(refusal);
      else authenticate(request, client, done);
    };
    if (blocked instanceof Promise) blocked.then(next, done);
    else next(blocked);
  });
}

export default fp(walletAuth, { name: 'wallet-auth' });
