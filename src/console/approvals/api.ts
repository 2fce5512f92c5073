import type { Policy, PolicyRule, Proposal, WalletAdminClient } from '../../client/index.ts';

/**
 * The approval calls the console's views make, over the typed client (src/client/approvals.ts): the
 * same calls and sign-in as every other request, a held change thrown as the client's HeldForApproval.
 */
export function approvalsApi(client: WalletAdminClient) {
  return {
    getPolicy: (): Promise<Policy & { etag: string }> => client.getPolicy(),
    putPolicy: (rules: PolicyRule[], etag?: string) => client.putPolicy(rules, { ifMatch: etag }),
    getChannelPolicy: (channelRef: string) => client.getChannelPolicy(channelRef),
    putChannelPolicy: (channelRef: string, rules: PolicyRule[], etag?: string) =>
      client.putChannelPolicy(channelRef, rules, { ifMatch: etag }),
    listProposals: client.listProposals,
    getProposal: client.getProposal,
    /** An intent the page had the wallet sign (wallet/sign-intent.ts), added as it was signed. */
    approveProposal: (id: string, approval: { wallet: string; signature: string }): Promise<Proposal> =>
      client.approveProposalSigned(id, approval),
    withdrawProposal: client.withdrawProposal,
  };
}

export type ApprovalsApi = ReturnType<typeof approvalsApi>;
