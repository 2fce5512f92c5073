import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { policyTag } from '../../approvals/policy-service.ts';
import { type ApprovalRouteDeps, policyRevisionOf, policyView, sendProposal, shownProposal } from '../proposals/support/views.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { PolicyBody, PolicySchema, ProposalSchema } from '../schemas/approvals.ts';
import { EXAMPLE_POLICY, EXAMPLE_PROPOSAL } from '../schemas/approvals-examples.ts';
import { ChannelParams } from '../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { actorOf, channelOf } from './support/channel-scope.ts';

const EXAMPLE = { ...EXAMPLE_POLICY, channelId: 'chn_8f2k4m6p9r1t3v5x7z0b2d4g6j', tenantRules: EXAMPLE_POLICY.rules, rules: [] };

/** A channel's policy, which can make the tenant's stricter, never weaker; registered in the channel scope. */
export default async function channelPolicyRoutes(base: FastifyInstance, deps: ApprovalRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/policy',
    {
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'getChannelPolicy',
        summary: "The channel's own rules, and the tenant's (the stricter of the two applies to each operation)",
        tags: ['approvals'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        response: { 200: jsonAnswer(PolicySchema, 'The policy; ETag "p{revision}"', EXAMPLE), ...channelErrorResponses },
      },
    },
    async (request, reply) => {
      const adminId = actorOf(request).adminId!;
      const policy = await deps.policies.get(adminId, channelOf(request));
      const tenant = await deps.policies.get(adminId, null);
      return reply.header('ETag', policyTag(policy)).send(policyView(policy, tenant.rules));
    },
  );

  app.put(
    '/api/channels/:channelRef/policy',
    {
      config: { auditRefusalsAs: 'policy.change' },
      preHandler: app.enterChannel({ permission: 'channels:manage' }),
      schema: {
        operationId: 'putChannelPolicy',
        summary: "Replace the channel's rules (channels:manage on the channel); held (202) when the policy in force guards its own change",
        tags: ['approvals'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        body: PolicyBody,
        response: {
          200: jsonAnswer(PolicySchema, 'Set: the policy', EXAMPLE),
          202: jsonAnswer(ProposalSchema, 'Held: the proposal of the change', { ...EXAMPLE_PROPOSAL, operation: 'policy.change' }),
          ...channelErrorResponses,
          ...problemResponses(409, 412),
        },
      },
    },
    async (request, reply) => {
      const adminId = actorOf(request).adminId!;
      const held = await deps.policies.put(adminId, channelOf(request), request.body.rules, policyRevisionOf(request.headers['if-match']));
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, adminId));
      const tenant = await deps.policies.get(adminId, null);
      return reply.header('ETag', policyTag(held.ran)).send(policyView(held.ran, tenant.rules));
    },
  );
}
