import type { Proposal } from './types.ts';

/** "1 of 2 approvals": how far a proposal is. */
export function countOf(proposal: Proposal): string {
  return `${proposal.approvalsCounted} of ${proposal.required} ${proposal.required === 1 ? 'approval' : 'approvals'}`;
}

/** Where a proposal stands, in a sentence: what the person who approved it, or reads it, needs to know next. */
export function stateOf(proposal: Proposal): string {
  switch (proposal.status) {
    case 'pending': {
      const missing = proposal.required - proposal.approvalsCounted;
      return `Pending: ${countOf(proposal)}. Nothing has been done yet; it runs once ${missing} more ${missing === 1 ? 'admin approves' : 'admins approve'}.`;
    }
    case 'running':
      return `Running: its ${countOf(proposal)} are in, and the operation is being carried out.`;
    case 'executed':
      return `Done: it ran with ${countOf(proposal)}.`;
    case 'failed':
      return `It ran and was refused${proposal.reason ? `: ${proposal.reason}` : ''}${codeOf(proposal.result)}.`;
    case 'invalidated':
      return `Nothing ran: what it acts on changed since it was proposed${proposal.reason ? ` (${proposal.reason})` : ''}.`;
    case 'withdrawn':
      return 'Withdrawn by its proposer: nothing ran.';
    case 'expired':
      return 'Expired before enough admins approved: nothing ran.';
  }
}

/** A failed run's error code (result.code), as " (CODE)". */
function codeOf(result: unknown): string {
  const code = typeof result === 'object' && result !== null ? (result as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? ` (${code})` : '';
}
