import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AdministrationRouteDeps } from './admins/support/deps.ts';
import { invitationView } from './admins/support/views.ts';
import { authenticationOf } from './auth/wallet-auth.ts';
import { pageRequestOf } from './channels/support/page-request.ts';
import { sendProposal, shownProposal } from './proposals/support/views.ts';
import { InvitationParams, InvitationSchema, IssuedInvitationSchema, NewInvitationBody } from './schemas/administration.ts';
import { EXAMPLE_INVITATION_PAGE, EXAMPLE_ISSUED_INVITATION } from './schemas/administration-examples.ts';
import { jsonAnswer, PAGE } from './schemas/answer.ts';
import { heldAnswer } from './schemas/approvals-examples.ts';
import { PageQuery, pageOf } from './schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/** Invitations for colleagues whose wallet one may not know yet (docs/administration.md). */
export default async function invitationRoutes(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/invitations',
    {
      config: { auditRefusalsAs: 'invitation.create' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'createInvitation',
        summary: 'Invite someone to join below the caller (admins:manage), with permissions and channels it holds itself',
        description:
          'Answers the token once, and the console link that carries it in its fragment (no server receives a fragment). Single use; ' +
          'expires after expiresIn seconds; with wallet, only that wallet may accept it.',
        tags: ['admins'],
        security: WALLET_SECURITY,
        body: NewInvitationBody,
        response: {
          201: jsonAnswer(IssuedInvitationSchema, 'Invited: share url with the invitee', EXAMPLE_ISSUED_INVITATION),
          202: heldAnswer('invitation.create'),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.createInvitation(actorId, { ...body, channels: body.channels ?? [] });
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      const { invitation, token } = held.ran;
      const url = new URL(`/console/invite#token=${token}`, deps.publicBaseUrl).href;
      return reply.code(201).send({ ...invitationView(invitation, Date.now()), token, url });
    },
  );

  app.get(
    '/api/invitations',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listInvitations',
        summary:
          "The invitations the caller may see (admins:manage): an owner the tenant's, a sub-admin its own and those below it; never a token",
        tags: ['admins'],
        security: WALLET_SECURITY,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(InvitationSchema), PAGE, EXAMPLE_INVITATION_PAGE), ...errors },
      },
    },
    async (request) => {
      const page = await deps.invitations.list(authenticationOf(request).principal.id, pageRequestOf(request.query));
      const now = Date.now();
      return { items: page.items.map((i) => invitationView(i, now)), next: page.next };
    },
  );

  app.delete(
    '/api/invitations/:invitationId',
    {
      config: { auditRefusalsAs: 'invitation.revoke' },
      preHandler: app.requireWallet,
      schema: {
        operationId: 'revokeInvitation',
        summary: 'Revoke a pending invitation (its inviter, or admins:manage over the inviter)',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: InvitationParams,
        response: { 204: { type: 'null', description: 'Revoked: it can no longer be accepted' }, ...errors, ...problemResponses(409) },
      },
    },
    async (request, reply) => {
      await deps.invitations.revoke(authenticationOf(request).principal.id, request.params.invitationId);
      return reply.code(204).send(null);
    },
  );
}
