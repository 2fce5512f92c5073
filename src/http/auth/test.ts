import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { WalletAuthenticator } from '../../auth/wallet-authenticator.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { AuthTestResponseSchema, WalletHeadersSchema } from '../schemas/auth.ts';
import { EXAMPLE_AUTH_TEST } from '../schemas/examples.ts';
import { authenticatedErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { authenticationOf } from './wallet-auth.ts';

const PREVIEW_LENGTH = 20;
const preview = (value: string) => `${value.slice(0, PREVIEW_LENGTH)}...`;

/** GET /api/auth/test: the contract's check of a sign-in. */
export default async function authTestRoute(base: FastifyInstance, options: { authenticator: WalletAuthenticator }): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  const { answers } = options.authenticator;

  app.get(
    '/api/auth/test',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getAuthTest',
        summary: 'Report the authenticated principal and the authentication headers received',
        tags: ['auth'],
        security: WALLET_SECURITY,
        headers: WalletHeadersSchema,
        response: {
          200: jsonAnswer(AuthTestResponseSchema, 'Signed in: the principal and the headers received', EXAMPLE_AUTH_TEST),
          ...authenticatedErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const { principal, walletAddress, received, cached } = authenticationOf(request);
      let body = answers.get(cached, principal, received.walletAddress);
      if (body === undefined) {
        // requireWallet has already refused a request missing any of these.
        const [wal, sig, mes] = [received.wal ?? '', received.sig ?? '', received.mes ?? ''];
        body = String(
          reply.serialize({
            principal,
            authenticated: true,
            headers: { 'X-WAL': preview(wal), 'X-SIG': preview(sig), 'X-MES': preview(mes) },
            allHeaders: { 'X-WAL': wal, 'X-SIG': sig, 'X-MES': mes, 'X-Wallet-Address': received.walletAddress ?? null },
            walletAddress,
          }),
        );
        // Kept for credentials in use: a new one (most of a sign-in flood) would only push others out.
        if (cached !== undefined) answers.set(cached, { principal, walletAddress: received.walletAddress, body });
      }
      return reply.type('application/json').send(body);
    },
  );
}
