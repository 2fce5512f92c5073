import { countOf } from '../approvals/proposal-state.ts';
import type { Proposal } from '../approvals/types.ts';
import { hrefOf } from '../routing.ts';

/** "Needs approval: proposal prp_… (0 of 2 approvals needed)": a held request, not done, and where its proposal is. */
export function HeldNotice({ proposal, onDismiss }: { proposal: Proposal; onDismiss?: () => void }) {
  return (
    <div class="notice notice-held" role="status">
      <p>
        <strong>Needs approval:</strong> proposal <code>{proposal.id}</code> ({countOf(proposal)} needed). Nothing has been done yet; it
        runs once {proposal.required} admins with <code>{proposal.permission}</code> have approved it.
      </p>
      <p>
        <a href={proposalHref(proposal.id)}>Open the proposal</a>
        {onDismiss && (
          <>
            {' '}
            <button type="button" class="button" onClick={onDismiss}>
              Dismiss
            </button>
          </>
        )}
      </p>
    </div>
  );
}

/** A proposal's page in the console. */
export const proposalHref = (id: string): string => hrefOf({ view: 'proposals', id });
