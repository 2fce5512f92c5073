import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BoundedCache } from '../../auth/bounded-cache.ts';
import type { Principal } from '../../auth/principal.ts';
import type { WalletAuthenticator, WalletHeaders } from '../../auth/wallet-authenticator.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { AuthTestResponseSchema, WalletHeadersSchema } from '../schemas/auth.ts';
import { EXAMPLE_AUTH_TEST } from '../schemas/examples.ts';
import { authenticatedErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { authenticationOf } from './wallet-auth.ts';

const PREVIEW_LENGTH = 20;
const preview = (value: string) => `${value.slice(0, PREVIEW_LENGTH)}...`;

export interface AuthRoutesOptions {
  authenticator: WalletAuthenticator;
  /** Answers of GET /api/auth/test kept serialized. */
  answerCacheSize: number;
}

/** A credential's answer, serialized once: it changes only with the admin's record (a new Principal) or the headers. */
interface CachedAnswer {
  principal: Principal;
  received: WalletHeaders;
  body: string;
}

const sameHeaders = (a: WalletHeaders, b: WalletHeaders) =>
  a.wal === b.wal && a.sig === b.sig && a.mes === b.mes && a.walletAddress === b.walletAddress;

/** GET /api/auth/test: the contract's check of a sign-in. */
export default async function authTestRoute(base: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  const answers = new BoundedCache<CachedAnswer>(options.answerCacheSize);

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
      const authentication = authenticationOf(request);
      const { principal, walletAddress, received } = authentication;
      const now = Date.now();
      let body = answers.get(
        received.sig!,
        now,
        (answer) => answer.principal === principal && sameHeaders(answer.received, received),
      )?.body;
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
        if (authentication.repeated) answers.set(received.sig!, { principal, received, body }, authentication.validUntil);
      }
      return reply.type('application/json').send(body);
    },
  );
}
