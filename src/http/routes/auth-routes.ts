import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { WalletAuthenticator } from '../../auth/wallet-authenticator.ts';
import { authenticationOf, walletHeaders } from '../plugins/wallet-auth.ts';
import { AuthTestResponseSchema, LogoutQuery, NonceResponseSchema, WalletHeadersSchema } from '../schemas/auth.ts';
import { authenticatedErrorResponses, problemRef } from '../schemas/problem.ts';

const PREVIEW_LENGTH = 20;
const preview = (value: string) => `${value.slice(0, PREVIEW_LENGTH)}...`;

export interface AuthRoutesOptions {
  authenticator: WalletAuthenticator;
}

export default async function authRoutes(base: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/auth/test',
    {
      preHandler: app.requireWallet,
      schema: {
        summary: 'Report the authenticated principal and the authentication headers received',
        tags: ['auth'],
        headers: WalletHeadersSchema,
        response: { 200: AuthTestResponseSchema, ...authenticatedErrorResponses },
      },
    },
    async (request) => {
      const { principal, walletAddress } = authenticationOf(request);
      // requireWallet has already refused a request missing any of these.
      const sent = walletHeaders(request);
      const [wal, sig, mes] = [sent.wal ?? '', sent.sig ?? '', sent.mes ?? ''];
      const sentWalletAddress = sent.walletAddress;
      return {
        principal,
        authenticated: true,
        headers: { 'X-WAL': preview(wal), 'X-SIG': preview(sig), 'X-MES': preview(mes) },
        allHeaders: { 'X-WAL': wal, 'X-SIG': sig, 'X-MES': mes, 'X-Wallet-Address': sentWalletAddress ?? null },
        walletAddress,
      };
    },
  );

  app.get(
    '/api/auth/nonce',
    {
      schema: {
        summary: 'Issue a nonce for a Sign-In with Ethereum message',
        tags: ['auth'],
        response: { 200: NonceResponseSchema, 503: problemRef },
      },
    },
    async () => {
      const { nonce, expiresAt } = await options.authenticator.issueNonce();
      return { nonce, expiresAt: new Date(expiresAt).toISOString() };
    },
  );

  app.post(
    '/api/auth/logout',
    {
      preHandler: app.requireWallet,
      schema: {
        summary: 'Revoke the presented signed message, or (all=true) every message the admin has signed, on every instance',
        tags: ['auth'],
        headers: WalletHeadersSchema,
        querystring: LogoutQuery,
        response: { 204: { type: 'null', description: 'Revoked' }, ...authenticatedErrorResponses },
      },
    },
    async (request, reply) => {
      const authentication = authenticationOf(request);
      if (request.query.all === 'true') await options.authenticator.logoutEverywhere(authentication);
      else await options.authenticator.logout(authentication);
      return reply.code(204).send(null);
    },
  );
}
