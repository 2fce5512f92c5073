import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { BoundedCache } from '../../auth/bounded-cache.ts';
import type { Principal } from '../../auth/principal.ts';
import type { WalletAuthenticator, WalletHeaders } from '../../auth/wallet-authenticator.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { AuthTestResponseSchema, LogoutQuery, NonceResponseSchema, WalletHeadersSchema } from '../schemas/auth.ts';
import { EXAMPLE_AUTH_TEST, EXAMPLE_NONCE } from '../schemas/examples.ts';
import { authenticatedErrorResponses, baseErrorResponses, problemResponses } from '../schemas/problem.ts';
import { NO_SECURITY, WALLET_SECURITY } from '../schemas/security.ts';
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

export default async function authRoutes(base: FastifyInstance, options: AuthRoutesOptions): Promise<void> {
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

  app.get(
    '/api/auth/nonce',
    {
      schema: {
        operationId: 'issueNonce',
        summary: 'Issue a nonce for a Sign-In with Ethereum message',
        tags: ['auth'],
        security: NO_SECURITY,
        response: {
          200: jsonAnswer(NonceResponseSchema, 'A nonce for one message, and until when a message may use it', EXAMPLE_NONCE),
          ...baseErrorResponses,
          ...problemResponses(503),
        },
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
        operationId: 'logout',
        summary: 'Revoke the presented signed message, or (all=true) every message the admin has signed, on every instance',
        tags: ['auth'],
        security: WALLET_SECURITY,
        headers: WalletHeadersSchema,
        querystring: LogoutQuery,
        response: { 204: { type: 'null', description: 'Revoked' }, ...authenticatedErrorResponses, ...problemResponses(413, 415) },
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
