import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Authentication, WalletAuthenticator, WalletHeaders } from '../../auth/wallet-authenticator.ts';
import { AppError } from '../../errors/app-error.ts';

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

async function walletAuth(app: FastifyInstance, options: { authenticator: WalletAuthenticator }): Promise<void> {
  app.decorateRequest('authentication', null);
  app.decorate('requireWallet', async function requireWallet(request: FastifyRequest) {
    request.authentication = await options.authenticator.authenticate(walletHeaders(request));
  });
}

export default fp(walletAuth, { name: 'wallet-auth' });
