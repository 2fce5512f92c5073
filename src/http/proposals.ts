import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from './auth/wallet-auth.ts';
import { pageRequestOf } from './channels/support/page-request.ts';
import { type ApprovalRouteDeps, shownProposal, shownProposals } from './proposals/support/views.ts';
import { jsonAnswer, PAGE } from './schemas/answer.ts';
import { ProposalListQuery, ProposalParams, ProposalSchema } from './schemas/approvals.ts';
import { EXAMPLE_PROPOSAL } from './schemas/approvals-examples.ts';
import { pageOf } from './schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/** The tenant's proposals: operations a policy holds until enough admins sign their intent (docs/approvals.md). */
export default async function proposalRoutes(base: FastifyInstance, deps: ApprovalRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/proposals',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listProposals',
        summary: "The tenant's proposals the caller may see, newest first (a sub-admin: those of its channels and those on no channel)",
        tags: ['approvals'],
        security: WALLET_SECURITY,
        querystring: ProposalListQuery,
        response: { 200: jsonAnswer(pageOf(ProposalSchema), PAGE, { items: [EXAMPLE_PROPOSAL], next: null }), ...errors },
      },
    },
    async (request) => {
      const { principal } = authenticationOf(request);
      const page = await deps.proposals.list(principal.id, pageRequestOf(request.query), request.query.status);
      return { items: await shownProposals(deps.proposals, page.items, principal.id), next: page.next };
    },
  );

  app.get(
    '/api/proposals/:proposalId',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getProposal',
        summary: 'A proposal: its plan, the typed data to sign, its approvals and its state',
        tags: ['approvals'],
        security: WALLET_SECURITY,
        params: ProposalParams,
        response: { 200: jsonAnswer(ProposalSchema, 'The proposal', EXAMPLE_PROPOSAL), ...errors },
      },
    },
    async (request) => {
      const { principal } = authenticationOf(request);
      return shownProposal(deps.proposals, await deps.proposals.get(principal.id, request.params.proposalId), principal.id);
    },
  );

  app.delete(
    '/api/proposals/:proposalId',
    {
      config: { auditRefusalsAs: 'proposal.withdraw' },
      preHandler: app.requireWallet,
      schema: {
        operationId: 'withdrawProposal',
        summary: 'Withdraw a pending proposal (its proposer): it will never run',
        tags: ['approvals'],
        security: WALLET_SECURITY,
        params: ProposalParams,
        response: {
          200: jsonAnswer(ProposalSchema, 'Withdrawn: the proposal', { ...EXAMPLE_PROPOSAL, status: 'withdrawn' }),
          ...errors,
          ...problemResponses(409),
        },
      },
    },
    async (request) => {
      const { principal } = authenticationOf(request);
      return shownProposal(deps.proposals, await deps.proposals.withdraw(principal.id, request.params.proposalId), principal.id);
    },
  );
}
