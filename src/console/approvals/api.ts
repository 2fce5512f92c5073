import { errorOf } from '../../client/errors.ts';
import type { Page, WalletAdminClient } from '../../client/index.ts';
import { heldAware } from '../transport/held.ts';
import type { ChannelPolicy, Policy, PolicyRule, Proposal, ProposalStatus } from './types.ts';

/**
 * The routes of docs/approvals.md, sent with the signed-in client's headers. The console's own
 * until the typed client (src/client) has these calls; the names are the ones it will have.
 */
export function approvalsApi(client: WalletAdminClient) {
  const send = heldAware((input, init) => globalThis.fetch(input, init));
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => {
    const signed = await client.signIn();
    const response = await send(new URL(path, window.location.origin).href, {
      method,
      headers: { ...signed, ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw await errorOf(response);
    return response;
  };
  const json = async <T>(response: Response): Promise<T> => (await response.json()) as T;
  const tagged = async <T>(response: Response): Promise<T & { etag: string }> => ({
    ...(await json<T>(response)),
    etag: response.headers.get('etag') ?? '',
  });
  const channelPolicyPath = (channelRef: string) => `/api/channels/${encodeURIComponent(channelRef.normalize('NFC'))}/policy`;
  const proposalPath = (id: string) => `/api/proposals/${encodeURIComponent(id)}`;
  const ifMatch = (etag: string | undefined): Record<string, string> => (etag ? { 'If-Match': etag } : {});

  return {
    getPolicy: async (): Promise<Policy> => tagged(await call('GET', '/api/policies')),
    putPolicy: async (rules: PolicyRule[], etag?: string): Promise<Policy> =>
      tagged(await call('PUT', '/api/policies', { rules }, ifMatch(etag))),
    getChannelPolicy: async (channelRef: string): Promise<ChannelPolicy> => tagged(await call('GET', channelPolicyPath(channelRef))),
    putChannelPolicy: async (channelRef: string, rules: PolicyRule[], etag?: string): Promise<ChannelPolicy> =>
      tagged(await call('PUT', channelPolicyPath(channelRef), { rules }, ifMatch(etag))),
    listProposals: async (query: { status?: ProposalStatus; limit?: number; cursor?: string } = {}): Promise<Page<Proposal>> => {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
      const search = params.toString();
      return json(await call('GET', `/api/proposals${search ? `?${search}` : ''}`));
    },
    getProposal: async (id: string): Promise<Proposal> => json(await call('GET', proposalPath(id))),
    approveProposal: async (id: string, approval: { wallet: string; signature: string }): Promise<Proposal> =>
      json(await call('POST', `${proposalPath(id)}/approvals`, approval)),
    withdrawProposal: async (id: string): Promise<Proposal> => json(await call('DELETE', proposalPath(id))),
  };
}

export type ApprovalsApi = ReturnType<typeof approvalsApi>;
