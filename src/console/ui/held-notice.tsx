import { countOf } from '../approvals/proposal-state.ts';
import type { Proposal } from '../approvals/types.ts';
import { hrefOf } from '../routing.ts';

/** "Needs approval: proposal prp_… (0 of 2 approvals needed)": a held request, not done, and where its proposal is. */
export function HeldNotice({ proposal }: { proposal: Proposal }) {
  return (
    <div class="notice notice-held" role="status">
      <p>
        <strong>Needs approval:</strong> proposal <code>{proposal.id}</code> ({countOf(proposal)} needed). Nothing has been done yet; it
        runs once {proposal.required} admins with <code>{proposal.permission}</code> have approved it.
      </p>
      <p>
        <a href={hrefOf({ view: 'proposals', id: proposal.id })}>Open the proposal</a>
      </p>
    </div>
  );
}
