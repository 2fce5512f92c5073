import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { policyTag } from '../approvals/policy-service.ts';
import { authenticationOf } from './auth/wallet-auth.ts';
import { type ApprovalRouteDeps, policyRevisionOf, policyView, sendProposal, shownProposal } from './proposals/support/views.ts';
import { jsonAnswer } from './schemas/answer.ts';
import { PolicyBody, PolicySchema, ProposalSchema } from './schemas/approvals.ts';
import { EXAMPLE_POLICY, EXAMPLE_PROPOSAL } from './schemas/approvals-examples.ts';
import { authenticatedErrorResponses, problemResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

/** The tenant's policy: which operations need how many signed intents (docs/approvals.md). */
export default async function policyRoutes(base: FastifyInstance, deps: ApprovalRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/policies',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getPolicy',
        summary: "The tenant's policy (any admin of the tenant): which operations need how many intents",
        tags: ['approvals'],
        security: WALLET_SECURITY,
        response: { 200: jsonAnswer(PolicySchema, 'The policy; ETag "p{revision}"', EXAMPLE_POLICY), ...authenticatedErrorResponses },
      },
    },
    async (request, reply) => {
      const policy = await deps.policies.get(authenticationOf(request).principal.id, null);
      return reply.header('ETag', policyTag(policy)).send(policyView(policy));
    },
  );

  app.put(
    '/api/policies',
    {
      config: { auditRefusalsAs: 'policy.change' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'putPolicy',
        summary: "Replace the tenant's rules (an owner); held (202, a proposal) when the policy in force guards its own change",
        description:
          'Refused (409 POLICY_UNSATISFIABLE) when fewer active admins than a rule asks hold its permission. With If-Match ("p{revision}"), ' +
          'nothing changes when the policy changed since (412).',
        tags: ['approvals'],
        security: WALLET_SECURITY,
        body: PolicyBody,
        response: {
          200: jsonAnswer(PolicySchema, 'Set: the policy', EXAMPLE_POLICY),
          202: jsonAnswer(ProposalSchema, 'Held: the proposal of the change, which needs signed intents', {
            ...EXAMPLE_PROPOSAL,
            operation: 'policy.change',
          }),
          ...authenticatedErrorResponses,
          ...problemResponses(409, 412),
        },
      },
    },
    async (request, reply) => {
      const { principal } = authenticationOf(request);
      const held = await deps.policies.put(principal.id, null, request.body.rules, policyRevisionOf(request.headers['if-match']));
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, principal.id));
      return reply.header('ETag', policyTag(held.ran)).send(policyView(held.ran));
    },
  );
}
