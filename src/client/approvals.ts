import { json, jsonCall, type SignedSender } from './requests.ts';
import type { WalletSigner } from './signers.ts';
import type { Page, Policy, PolicyRule, Proposal, ProposalQuery } from './types.ts';

const proposalPath = (id: string) => `/api/proposals/${encodeURIComponent(id)}`;
const channelPolicyPath = (channelRef: string) => `/api/channels/${encodeURIComponent(channelRef.normalize('NFC'))}/policy`;

/**
 * Policies and proposals (docs/approvals.md). A request a policy holds throws HeldForApproval with
 * its proposal; an admin approves it by signing exactly its typedData (approveProposal).
 */
export function approvalCalls(signed: SignedSender) {
  const approveSigned = async (proposalId: string, intent: { wallet: string; signature: string }): Promise<Proposal> =>
    json(await signed(jsonCall('POST', `${proposalPath(proposalId)}/approvals`, intent)));

  return {
    getPolicy: async (): Promise<Policy> => json(await signed({ method: 'GET', path: '/api/policies' })),

    /** Replaces the tenant's rules (an owner); HeldForApproval when the policy in force guards its own change. */
    putPolicy: async (rules: PolicyRule[]): Promise<Policy> => json(await signed(jsonCall('PUT', '/api/policies', { rules }))),

    getChannelPolicy: async (channelRef: string): Promise<Policy> =>
      json(await signed({ method: 'GET', path: channelPolicyPath(channelRef) })),

    putChannelPolicy: async (channelRef: string, rules: PolicyRule[]): Promise<Policy> =>
      json(await signed(jsonCall('PUT', channelPolicyPath(channelRef), { rules }))),

    listProposals: async (query: ProposalQuery = {}): Promise<Page<Proposal>> =>
      json(
        await signed({ method: 'GET', path: '/api/proposals', query: { status: query.status, limit: query.limit, cursor: query.cursor } }),
      ),

    getProposal: async (proposalId: string): Promise<Proposal> => json(await signed({ method: 'GET', path: proposalPath(proposalId) })),

    /**
     * Signs the proposal's typed data with `wallet` (eth_signTypedData_v4) and adds the intent; the
     * answer is the proposal as it stands (executed when this intent brought it to its count).
     */
    async approveProposal(proposalId: string, wallet: WalletSigner): Promise<Proposal> {
      const proposal = await json<Proposal>(await signed({ method: 'GET', path: proposalPath(proposalId) }));
      if (wallet.signTypedData === undefined) throw new Error('This wallet signer cannot sign typed data (eth_signTypedData_v4)');
      const [address, signature] = await Promise.all([wallet.getAddress(), wallet.signTypedData(proposal.typedData)]);
      return approveSigned(proposalId, { wallet: address, signature });
    },

    /** As approveProposal, for an intent signed elsewhere (a hardware wallet, another machine). */
    approveProposalSigned: approveSigned,

    /** The proposer takes it back: it will never run. */
    withdrawProposal: async (proposalId: string): Promise<Proposal> =>
      json(await signed({ method: 'DELETE', path: proposalPath(proposalId) })),
  };
}
