import { countOf, stateOf } from '../approvals/proposal-state.ts';
import type { Proposal } from '../approvals/types.ts';
import { shortAddress } from '../ui/format.ts';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import { AdminName } from './admin-name.tsx';
import type { ViewContext } from './context.ts';
import { type PolicyOf, ProposalResult, ProposalRules } from './proposal-outcome.tsx';
import { ProposalPlan } from './proposal-plan.tsx';

interface ProposalCardProps {
  ctx: ViewContext;
  proposal: Proposal;
  adminName(id: string): string | null;
  policyOf: PolicyOf;
  onApprove(proposal: Proposal): void;
  onWithdraw(proposal: Proposal): void;
}

/** One proposal: what it will do, where it stands, who approved and who may, and what the admin can do about it. */
export function ProposalCard({ ctx, proposal, adminName, policyOf, onApprove, onWithdraw }: ProposalCardProps) {
  const me = ctx.signedIn.me.principal.id;
  const pending = proposal.status === 'pending';
  const approvedByMe = proposal.approvals.some((approval) => approval.adminId === me);
  const mayApprove = pending && !approvedByMe && proposal.eligibleAdminIds.includes(me);
  const titleId = `proposal-${proposal.id}`;
  // The proposal names its own admins, so that an approver without admins:read sees who asks.
  const nameOf = (id: string) => proposal.adminNames[id] ?? adminName(id);
  const who = (id: string) => <AdminName id={id} name={nameOf(id)} />;
  return (
    <article class="proposal" aria-labelledby={titleId}>
      <header class="proposal-head">
        <h2 id={titleId}>{proposal.summary}</h2>
        <span class={`badge badge-${proposal.status}`}>{proposal.status}</span>
      </header>
      <p class="proposal-state">{stateOf(proposal)}</p>
      <InvitationMade proposal={proposal} />
      <dl class="facts">
        <dt>Operation</dt>
        <dd>
          <code>{proposal.operation}</code>
        </dd>
        <dt>Channel</dt>
        <dd>{proposal.channelId ? ctx.channelName(proposal.channelId) : <span class="muted">None (the tenant)</span>}</dd>
        <dt>Proposed</dt>
        <dd>
          {who(proposal.proposedBy)}, <Time value={proposal.createdAt} />
        </dd>
        <dt>Approvals</dt>
        <dd>
          {countOf(proposal)}, from admins holding <code>{proposal.permission}</code>
        </dd>
        <dt>Held by</dt>
        <dd>
          <ProposalRules ctx={ctx} proposal={proposal} policyOf={policyOf} />
        </dd>
        <dt>Approved by</dt>
        <dd>
          {proposal.approvals.length === 0 ? (
            <span class="muted">Nobody yet</span>
          ) : (
            <ul class="plain-list" aria-label="Approved by">
              {proposal.approvals.map((approval) => (
                <li key={`${approval.adminId}/${approval.wallet}`}>
                  {who(approval.adminId)} <code title={approval.wallet}>{shortAddress(approval.wallet)}</code>{' '}
                  <span class="muted">
                    <Time value={approval.approvedAt} />
                    {approval.kind === 'contract' && ', contract wallet'}
                  </span>
                  {!approval.counts && <span class="badge badge-failed badge-after">does not count</span>}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>May approve</dt>
        <dd>
          <ul class="plain-list inline-list" aria-label="May approve">
            {proposal.eligibleAdminIds.map((id) => (
              <li key={id}>{who(id)}</li>
            ))}
          </ul>
        </dd>
        <dt>{pending ? 'Expires' : 'Finished'}</dt>
        <dd>{pending ? <Time value={proposal.expiresAt} /> : proposal.finishedAt && <Time value={proposal.finishedAt} />}</dd>
        <ProposalResult ctx={ctx} proposal={proposal} />
      </dl>
      <details class="proposal-plan" open={pending}>
        <summary>What it will do</summary>
        <ProposalPlan ctx={ctx} proposal={proposal} adminName={nameOf} />
      </details>
      {pending && (
        <div class="actions proposal-actions">
          {mayApprove && (
            <button type="button" class="button button-primary" onClick={() => onApprove(proposal)}>
              Approve…
            </button>
          )}
          {approvedByMe && <span class="muted">You approved it.</span>}
          {proposal.proposedBy === me && (
            <RowButton label="Withdraw…" aria-label={`Withdraw proposal ${proposal.id}`} danger onClick={() => onWithdraw(proposal)} />
          )}
        </div>
      )}
    </article>
  );
}

/**
 * A held invitation, once made: its link is in the proposal's result for its proposer only (the
 * service shows it to nobody else), who passes it on as with an invitation made at once.
 */
function InvitationMade({ proposal }: { proposal: Proposal }) {
  const result = proposal.result as { url?: unknown } | null;
  if (proposal.operation !== 'invitation.create' || proposal.status !== 'executed' || typeof result?.url !== 'string') return null;
  return (
    <label class="field">
      <span>The invitation's link, for you to send to the invitee</span>
      <input readOnly value={result.url} onFocus={(event) => (event.target as HTMLInputElement).select()} />
    </label>
  );
}
