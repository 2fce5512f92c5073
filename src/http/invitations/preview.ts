import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { FailureLimiter } from '../../auth/limits/failure-limiter.ts';
import { toEip55 } from '../../auth/siwe/siwe-message.ts';
import type { AdministrationRouteDeps } from '../admins/support/deps.ts';
import { InvitationPreviewBody, InvitationPreviewSchema } from '../schemas/administration.ts';
import { EXAMPLE_INVITATION_PREVIEW } from '../schemas/administration-examples.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { baseErrorResponses, problemResponses } from '../schemas/problem.ts';
import { NO_SECURITY } from '../schemas/security.ts';
import { openedByToken } from './support/token-guard.ts';

/**
 * What an invitation grants and who asks, for its link's holder to read before signing anything:
 * the token alone opens it, as it alone lets a wallet accept. A POST with the token in its body, so
 * that no URL (and no access log of a proxy on the way) ever holds the token; it changes nothing.
 */
export default async function invitationPreviewRoute(
  base: FastifyInstance,
  deps: Pick<AdministrationRouteDeps, 'invitations'> & { failures: FailureLimiter },
): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/invitations/preview',
    {
      schema: {
        operationId: 'previewInvitation',
        summary: 'What a pending invitation grants and who invites, for the holder of its link (no sign-in: the token is the credential)',
        description:
          'Changes nothing. A token that opens no invitation is 404 and counts against the failures an address may make (AUTH_FAIL_LIMIT); ' +
          'a used, revoked or expired one is 409, as its acceptance would be.',
        tags: ['admins'],
        security: NO_SECURITY,
        body: InvitationPreviewBody,
        response: {
          200: jsonAnswer(InvitationPreviewSchema, 'The invitation, as accepting it would make its admin', EXAMPLE_INVITATION_PREVIEW),
          ...baseErrorResponses,
          ...problemResponses(404, 409, 429, 503),
        },
      },
    },
    async (request) => {
      const preview = await openedByToken(request, deps.failures, () => deps.invitations.preview(request.body.token));
      const { invitation } = preview;
      return {
        id: invitation.id,
        tenant: preview.tenant,
        inviter: preview.inviter,
        displayName: invitation.displayName,
        wallet: invitation.wallet === null ? null : toEip55(invitation.wallet),
        permissions: invitation.permissions,
        channels: preview.channels,
        owner: false as const,
        expiresAt: new Date(invitation.expiresAt).toISOString(),
      };
    },
  );
}
