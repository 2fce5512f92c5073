import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { WalletAuthenticator } from '../../auth/wallet-authenticator.ts';
import { formatRfc3339 } from '../../time/rfc3339.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { NonceResponseSchema } from '../schemas/auth.ts';
import { EXAMPLE_NONCE } from '../schemas/examples.ts';
import { baseErrorResponses, problemResponses } from '../schemas/problem.ts';
import { NO_SECURITY } from '../schemas/security.ts';

/** GET /api/auth/nonce: no sign-in, since the nonce goes into the message one signs. */
export default async function nonceRoute(base: FastifyInstance, options: { authenticator: WalletAuthenticator }): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

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
      return { nonce, expiresAt: formatRfc3339(expiresAt) };
    },
  );
}
