import { pathSegment } from './encoding.ts';
import { conditionHeader, type IfMatch, json, jsonCall, type SignedSender } from './requests.ts';
import type { WalletSigner } from './signers.ts';
import type { HeldOperation, Page, Policy, PolicyRule, Proposal, ProposalQuery, Tagged } from './types.ts';

/** Every operation a policy may hold, in the order the service lists them (docs/approvals.md). */
export const HELD_OPERATIONS: readonly HeldOperation[] = [
  'folder.restore',
  'channel.restore',
  'backup.delete',
  'backup.lock',
  'admin.create',
  'admin.change',
  'admin.remove',
  'invitation.create',
  'wallet.add',
  'policy.change',
  'webhook.create',
  'webhook.change',
  'webhook.delete',
  'offsite.change',
];

/** The record of an answer, with the answer's ETag ("p3" for a policy: If-Match it to change what was read). */
async function tagged<T>(response: Response): Promise<Tagged<T>> {
  return { ...(await json<T>(response)), etag: response.headers.get('etag') ?? '' };
}

const proposalPath = (id: string) => `/api/proposals/${pathSegment(id)}`;
const channelPolicyPath = (channelRef: string) => `/api/channels/${pathSegment(channelRef)}/policy`;

/**
 * Policies and proposals (docs/approvals.md). A request a policy holds throws HeldForApproval with
 * its proposal; an admin approves it by signing exactly its typedData (approveProposal).
 */
export function approvalCalls(signed: SignedSender) {
  const approveSigned = async (proposalId: string, intent: { wallet: string; signature: string }): Promise<Proposal> =>
    json(await signed(jsonCall('POST', `${proposalPath(proposalId)}/approvals`, intent)));

  return {
    getPolicy: async (): Promise<Tagged<Policy>> => tagged(await signed({ method: 'GET', path: '/api/policies' })),

    /**
     * Replaces the tenant's rules (an owner); `ifMatch`: the policy's etag as read, to change it only
     * if it is still that one (else 412). HeldForApproval when the policy in force guards its own change.
     */
    putPolicy: async (rules: PolicyRule[], conditions: IfMatch = {}): Promise<Tagged<Policy>> =>
      tagged(await signed(jsonCall('PUT', '/api/policies', { rules }, conditionHeader('If-Match', conditions.ifMatch)))),

    /** The channel's own rules, and in `tenantRules` the tenant's, which apply too (the stricter wins). */
    getChannelPolicy: async (channelRef: string): Promise<Tagged<Policy>> =>
      tagged(await signed({ method: 'GET', path: channelPolicyPath(channelRef) })),

    putChannelPolicy: async (channelRef: string, rules: PolicyRule[], conditions: IfMatch = {}): Promise<Tagged<Policy>> =>
      tagged(await signed(jsonCall('PUT', channelPolicyPath(channelRef), { rules }, conditionHeader('If-Match', conditions.ifMatch)))),

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
