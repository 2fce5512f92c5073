import type { Proposal } from '../approvals/types.ts';

/**
 * A request the tenant's policy holds: the service answered 202 with a proposal, and nothing has
 * been done yet. It is thrown, not answered, so that no view takes it for the change it asked for:
 * every view already treats a refusal as "nothing changed", and shows it where it shows problems.
 */
export class ProposalHeld extends Error {
  readonly proposal: Proposal;

  constructor(proposal: Proposal) {
    super(`Needs approval: proposal ${proposal.id} (${proposal.approvalsCounted} of ${proposal.required} needed)`);
    this.name = 'ProposalHeld';
    this.proposal = proposal;
  }
}

/** Whether an answer's body is a proposal (docs/approvals.md): a 202 may mean other things elsewhere. */
function isProposal(value: unknown): value is Proposal {
  if (typeof value !== 'object' || value === null) return false;
  const fields = value as Record<string, unknown>;
  return typeof fields.id === 'string' && typeof fields.status === 'string' && typeof fields.typedData === 'object';
}

/**
 * `send`, except that a 202 answering a proposal is thrown as ProposalHeld. The console's client
 * sends through it, so every call it makes (restores, admins, invitations, policies) is covered.
 */
export function heldAware(send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await send(input, init);
    if (response.status !== 202 || !/json/i.test(response.headers.get('content-type') ?? '')) return response;
    const body: unknown = await response.clone().json();
    if (isProposal(body)) throw new ProposalHeld(body);
    return response;
  };
}
