import type { JSX } from 'preact';
import { useCallback, useRef, useState } from 'preact/hooks';
import type { Policy, Proposal } from '../approvals/types.ts';
import { hrefOf, type ProposalFilter } from '../routing.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { PagedList, usePagedLoad } from '../ui/paged-list.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';
import { useAdminNames } from './admin-names.ts';
import { ApproveDialog } from './approve-dialog.tsx';
import type { ViewContext } from './context.ts';
import { ProposalCard } from './proposal-card.tsx';
import type { PolicyOf } from './proposal-outcome.tsx';
import { TenantPolicyCard } from './tenant-policy-card.tsx';

const FILTERS: { value: ProposalFilter; label: string }[] = [
  { value: 'pending', label: 'Pending' },
  { value: 'executed', label: 'Executed' },
  { value: 'failed', label: 'Failed' },
  { value: 'invalidated', label: 'Invalidated' },
  { value: 'withdrawn', label: 'Withdrawn' },
  { value: 'expired', label: 'Expired' },
  { value: 'any', label: 'Any' },
];

type Acting = { approve: Proposal } | { withdraw: Proposal };

/** The tenant's proposals (pending first, the closed ones behind the filter), approving and withdrawing them, and the tenant's policy. */
export function ProposalsView({ ctx, id, status = 'pending' }: { ctx: ViewContext; id?: string; status?: ProposalFilter }) {
  const proposals = usePagedLoad(
    (cursor) => ctx.approvals.listProposals({ status: status === 'any' ? undefined : status, limit: 20, cursor }),
    status,
  );
  const adminName = useAdminNames(ctx);
  const policyOf = usePolicies(ctx);
  const [acting, setActing] = useState<Acting>();
  /** Raised by each approval or withdrawal, for the one proposal shown above the list to be read again. */
  const [round, setRound] = useState(0);
  const changed = () => {
    proposals.reload();
    setRound((n) => n + 1);
    ctx.proposalsChanged();
  };
  const card = (proposal: Proposal) => (
    <ProposalCard
      key={proposal.id}
      ctx={ctx}
      proposal={proposal}
      adminName={adminName}
      policyOf={policyOf}
      onApprove={(approve) => setActing({ approve })}
      onWithdraw={(withdraw) => setActing({ withdraw })}
    />
  );

  return (
    <>
      {id && <OneProposal ctx={ctx} id={id} round={round} render={card} />}
      <section class="card" aria-labelledby="proposals-title">
        <div class="section-head">
          <h1 id="proposals-title">Proposals</h1>
          <div class="section-tools">
            <label class="field field-inline">
              <span>Status</span>
              <select
                value={status}
                onChange={(event) => {
                  proposals.pages.reset();
                  window.location.hash = hrefOf({ view: 'proposals', status: (event.target as HTMLSelectElement).value as ProposalFilter });
                }}
              >
                {FILTERS.map((filter) => (
                  <option key={filter.value} value={filter.value}>
                    {filter.label}
                  </option>
                ))}
              </select>
            </label>
          </div>
        </div>
        <p class="muted">
          A policy can hold a dangerous operation until enough admins sign it with their wallets. Each proposal below says exactly what it
          will do; approving signs that, and nothing else.
        </p>
        <ProblemNotice error={proposals.error} />
        <PagedList
          list={proposals}
          label="Proposals"
          empty={<p>{status === 'pending' ? 'No proposal is waiting for approval.' : 'No proposal matches.'}</p>}
          loading="Loading proposals…"
        >
          {(items) => <div class="proposal-list">{items.map(card)}</div>}
        </PagedList>
      </section>
      <TenantPolicyCard ctx={ctx} />
      {acting && 'approve' in acting && (
        <ApproveDialog ctx={ctx} proposal={acting.approve} onClose={() => setActing(undefined)} onApproved={changed} />
      )}
      {acting && 'withdraw' in acting && (
        <WithdrawDialog
          ctx={ctx}
          proposal={acting.withdraw}
          onClose={() => setActing(undefined)}
          onWithdrawn={() => {
            setActing(undefined);
            ctx.announce(`Proposal ${acting.withdraw.id} withdrawn: nothing ran.`);
            changed();
          }}
        />
      )}
    </>
  );
}

/**
 * The policies that hold the page's proposals, each read once per visit of the page however many
 * proposals it holds: a channel's (with the tenant's rules beside), or the tenant's.
 */
function usePolicies(ctx: ViewContext): PolicyOf {
  const read = useRef(new Map<string, Promise<Policy>>());
  return useCallback(
    (channelId: string | null) => {
      const key = channelId ?? '';
      let policy = read.current.get(key);
      if (!policy) {
        policy = channelId === null ? ctx.approvals.getPolicy() : ctx.approvals.getChannelPolicy(channelId);
        read.current.set(key, policy);
      }
      return policy;
    },
    [ctx.approvals],
  );
}

/** The proposal a held request linked to, whatever its status, above the list. */
function OneProposal({
  ctx,
  id,
  round,
  render,
}: {
  ctx: ViewContext;
  id: string;
  /** Raised after an approval or a withdrawal: the proposal is read again. */
  round: number;
  render(proposal: Proposal): JSX.Element;
}) {
  const proposal = useLoad(() => ctx.approvals.getProposal(id), `${id}\n${round}`);
  return (
    <section class="card" aria-label={`Proposal ${id}`}>
      <p>
        <a href={hrefOf({ view: 'proposals' })}>All pending proposals</a>
      </p>
      <ProblemNotice error={proposal.error} />
      {proposal.data ? render(proposal.data) : proposal.loading && <p aria-live="polite">Loading the proposal…</p>}
    </section>
  );
}

/** The proposer takes their proposal back: nothing of it runs, and the intents given stop mattering. */
function WithdrawDialog({
  ctx,
  proposal,
  onClose,
  onWithdrawn,
}: {
  ctx: ViewContext;
  proposal: Proposal;
  onClose(): void;
  onWithdrawn(): void;
}) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const withdraw = () =>
    action.run(async () => {
      await ctx.approvals.withdrawProposal(proposal.id);
      onWithdrawn();
    });
  return (
    <ConfirmDialog
      title="Withdraw this proposal?"
      confirmLabel="Withdraw"
      danger
      busy={action.busy}
      onConfirm={withdraw}
      onCancel={onClose}
    >
      <p>
        <strong>{proposal.summary}</strong>
      </p>
      <p>It will never run, whoever approves it later. To do it after all, ask for it again: that makes a new proposal.</p>
      <ProblemNotice error={action.error} title="Not withdrawn" />
    </ConfirmDialog>
  );
}
