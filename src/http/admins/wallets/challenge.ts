import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { formatRfc3339 } from '../../../time/rfc3339.ts';
import { authenticationOf } from '../../auth/wallet-auth.ts';
import { AdminParams, WalletChallengeBody, WalletChallengeSchema } from '../../schemas/administration.ts';
import { EXAMPLE_WALLET_CHALLENGE } from '../../schemas/administration-examples.ts';
import { jsonAnswer } from '../../schemas/answer.ts';
import { authenticatedErrorResponses, problemResponses } from '../../schemas/problem.ts';
import { WALLET_SECURITY } from '../../schemas/security.ts';
import type { AdministrationRouteDeps } from '../support/deps.ts';

/** The typed data a new wallet signs to join an admin: what it grants, a nonce, 10 minutes; never a sign-in. */
export default async function walletChallengeRoute(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/admins/:adminId/wallets/challenge',
    {
      preValidation: app.requireWallet,
      schema: {
        operationId: 'createWalletChallenge',
        summary: 'The EIP-712 typed data the new wallet signs to join the admin (oneself, or an owner for anyone); valid 10 minutes, once',
        description:
          'Typed data, signed with eth_signTypedData_v4, so that the proof can never serve as a sign-in (X-MES/X-SIG take personal_sign messages only).',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: AdminParams,
        body: WalletChallengeBody,
        response: {
          200: jsonAnswer(
            WalletChallengeSchema,
            'Sign typedData with the new wallet (eth_signTypedData_v4) and send both to POST …/wallets',
            EXAMPLE_WALLET_CHALLENGE,
          ),
          ...authenticatedErrorResponses,
          ...problemResponses(404, 409),
        },
      },
    },
    async (request) => {
      const { wallet, chainId } = request.body;
      const challenge = await deps.admins.walletChallenge(authenticationOf(request).principal.id, request.params.adminId, wallet, chainId);
      return { typedData: challenge.typedData, expiresAt: formatRfc3339(challenge.expiresAt) };
    },
  );
}
