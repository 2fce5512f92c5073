import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { ApprovalBody, ProposalParams, ProposalSchema } from '../schemas/approvals.ts';
import { EXAMPLE_PROPOSAL } from '../schemas/approvals-examples.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { type ApprovalRouteDeps, shownProposal } from './support/views.ts';

/** Adding a signed intent to a proposal, which runs it when that brings it to its count (docs/approvals.md). */
export default async function approvalRoute(base: FastifyInstance, deps: ApprovalRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/proposals/:proposalId/approvals',
    {
      config: { auditRefusalsAs: 'proposal.approve' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'approveProposal',
        summary: "Add an admin's signed intent (eth_signTypedData_v4 of the proposal's typedData); the proposal runs when enough count",
        description:
          'Posted by any signed-in admin of the tenant: the intent says who approves (the admin holding wallet). An admin counts once, whichever ' +
          'of its wallets signs, and only if it held the permission when the proposal was made. The answer is the proposal: still pending, ' +
          'executed (result), failed or invalidated (reason: what it acts on changed since; nothing ran).',
        tags: ['approvals'],
        security: WALLET_SECURITY,
        params: ProposalParams,
        body: ApprovalBody,
        response: {
          200: jsonAnswer(ProposalSchema, 'Approved: the proposal as it stands', EXAMPLE_PROPOSAL),
          ...authenticatedErrorResponses,
          ...problemResponses(404, 409),
        },
      },
    },
    async (request) => {
      const { principal } = authenticationOf(request);
      const { wallet, signature } = request.body;
      const proposal = await deps.proposals.approve(principal.id, request.params.proposalId, wallet, signature);
      return shownProposal(deps.proposals, proposal, principal.id);
    },
  );
}
