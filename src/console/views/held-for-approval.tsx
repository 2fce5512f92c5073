import type { Proposal } from '../../client/index.ts';

/**
 * The proposal's page. The proposals view is routed as `#/proposals/{id}` (built on another branch);
 * until both meet, the address is written out here, in one place.
 */
export function proposalHref(id: string): string {
  return `#/proposals/${encodeURIComponent(id)}`;
}

/**
 * What a request a policy held (202) shows instead of "done": nothing happened yet, the proposal it
 * made, how many of the intents it needs are there, and where to approve it.
 */
export function HeldForApproval({ proposal, onDismiss }: { proposal: Proposal; onDismiss(): void }) {
  return (
    <div class="notice held-notice" role="status">
      <p>
        <strong>Needs approval:</strong> {proposal.summary} ({proposal.approvalsCounted} of {proposal.required})
      </p>
      <p class="muted">
        A policy holds this request: nothing is done until {proposal.required} admins holding <code>{proposal.permission}</code> sign it.
        Your own approval counts too; sign it on the proposal's page.
      </p>
      <div class="copy-row">
        <a class="button button-primary" href={proposalHref(proposal.id)}>
          Open proposal {proposal.id}
        </a>
        <button type="button" class="button" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
