import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { FailureLimiter } from '../../auth/limits/failure-limiter.ts';
import { requireWalletHeaders } from '../../auth/wallet-authenticator.ts';
import { type AdministrationRouteDeps, tenantFeatures } from '../admins/support/deps.ts';
import { adminEtag, adminView } from '../admins/support/views.ts';
import { walletHeaders } from '../auth/wallet-auth.ts';
import { AcceptInvitationBody, ADMIN_ETAG, AdminSchema, InvitationTokenParams } from '../schemas/administration.ts';
import { EXAMPLE_ADMIN } from '../schemas/administration-examples.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { clientAddress } from '../server/client-address.ts';
import { openedByToken } from './support/token-guard.ts';

/**
 * The one call a wallet that is no admin yet makes: accepting an invitation. Its signed-in headers
 * are checked as any other's, after the token (so a stranger's signature costs nothing without one);
 * a token that opens nothing counts against the address's failures, as a bad signature does.
 */
export default async function acceptInvitationRoute(
  base: FastifyInstance,
  deps: AdministrationRouteDeps & { failures: FailureLimiter },
): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/invitations/:token/accept',
    {
      schema: {
        operationId: 'acceptInvitation',
        summary: "Accept an invitation, signed in with the wallet that is to be the new admin's (no admin's yet)",
        description: 'Once, while pending, and while its inviter is still active and still holds what it grants.',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: InvitationTokenParams,
        body: AcceptInvitationBody,
        response: {
          201: { ...jsonAnswer(AdminSchema, 'Joined: the new admin', EXAMPLE_ADMIN), headers: { ETag: ADMIN_ETAG } },
          ...authenticatedErrorResponses,
          ...problemResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const headers = walletHeaders(request);
      requireWalletHeaders(headers);
      const invitation = await openedByToken(request, deps.failures, () => deps.invitations.open(request.params.token));
      const newcomer = await deps.newcomers.authenticateNewcomer(headers, clientAddress(request));
      const admin = await deps.invitations.accept(invitation, newcomer.walletAddress, request.body?.displayName);
      const features = await tenantFeatures(deps, admin.tenantId);
      return reply.code(201).header('ETag', adminEtag(admin)).send(adminView(admin, features));
    },
  );
}
