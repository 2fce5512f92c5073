import type { FastifyReply } from 'fastify';
import type { PolicyService } from '../../../approvals/policy-service.ts';
import type { ProposalService } from '../../../approvals/proposal-service.ts';
import type { Policy, PolicyRule, Proposal } from '../../../model/approvals.ts';
import { formatRfc3339 } from '../../../time/rfc3339.ts';

/** A proposal as the API shows it, as ProposalService.shownTo made it for its viewer (a held invitation's token once, to its proposer). */
function proposalView(proposal: Proposal, { counted, adminNames }: { counted: readonly string[]; adminNames: Record<string, string> }) {
  return {
    id: proposal.id,
    tenantId: proposal.tenantId,
    channelId: proposal.channelId,
    operation: proposal.operation,
    status: proposal.status,
    proposedBy: proposal.proposedBy,
    createdAt: formatRfc3339(proposal.createdAt),
    expiresAt: formatRfc3339(proposal.expiresAt),
    required: proposal.required,
    permission: proposal.permission,
    plan: withoutSealed(proposal.plan) as Record<string, unknown>,
    planEtag: proposal.planEtag,
    summary: proposal.summary,
    typedData: proposal.typedData,
    approvals: proposal.approvals.map((a) => ({
      adminId: a.adminId,
      wallet: a.wallet,
      signature: a.signature,
      kind: a.kind,
      approvedAt: formatRfc3339(a.approvedAt),
      counts: counted.includes(a.adminId),
    })),
    approvalsCounted: counted.length,
    eligibleAdminIds: proposal.eligibleAdminIds,
    adminNames,
    reason: proposal.reason,
    result: proposal.result,
    ...(proposal.finishedAt === null ? {} : { finishedAt: formatRfc3339(proposal.finishedAt) }),
  };
}

export function policyView(policy: Policy, tenantRules?: PolicyRule[]) {
  return {
    tenantId: policy.tenantId,
    channelId: policy.channelId,
    rules: policy.rules,
    ...(tenantRules === undefined ? {} : { tenantRules }),
    revision: policy.revision,
    ...(policy.updatedAt === null ? {} : { updatedAt: formatRfc3339(policy.updatedAt) }),
    ...(policy.updatedBy === null ? {} : { updatedBy: policy.updatedBy }),
  };
}

/** A policy's revision from If-Match ("p3"); -1 for a tag no policy has, so that the change is refused (412). */
export function policyRevisionOf(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const match = /^(?:W\/)?"p(\d{1,15})"$/.exec(ifMatch.trim());
  return match ? Number(match[1]) : -1;
}

/** A held request's answer: 202, where the proposal is, and the proposal. */
export function sendProposal(reply: FastifyReply, view: ReturnType<typeof proposalView>) {
  return reply.code(202).header('Location', `/api/proposals/${view.id}`).send(view);
}

/** What the approval routes need: services only. */
export interface ApprovalRouteDeps {
  proposals: ProposalService;
  policies: PolicyService;
}

/** The proposal as `viewerId` sees it, with which of its approvals count now and who its admins are. */
export async function shownProposal(proposals: Pick<ProposalService, 'standing' | 'shownTo'>, proposal: Proposal, viewerId: string) {
  return proposalView(await proposals.shownTo(proposal, viewerId), await proposals.standing(proposal));
}

/** shownProposal() of a page of proposals, the tenant's admins read once for the page. */
export async function shownProposals(
  proposals: Pick<ProposalService, 'standingOfEach' | 'shownTo'>,
  page: readonly Proposal[],
  viewerId: string,
) {
  const standings = await proposals.standingOfEach(page);
  const shown = await Promise.all(page.map((proposal) => proposals.shownTo(proposal, viewerId)));
  return shown.map((proposal, i) => proposalView(proposal, standings[i]!));
}

/**
 * A plan as answers show it: without the values sealed under SECRETS_KEY it carries for its run (a
 * webhook's URL, a tenant bucket's secret key). Sealed, they read as nothing; shown, they would hand
 * every admin who may see the proposal a ciphertext of a secret that only the service may open.
 */
function withoutSealed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSealed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([key]) => !key.endsWith('Sealed'))
      .map(([key, inner]) => [key, withoutSealed(inner)]),
  );
}
