import { useState } from 'preact/hooks';
import type { Policy, PolicyRule, Proposal } from '../approvals/types.ts';
import { hrefOf } from '../routing.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { formatBackupTimestamp } from '../ui/format.ts';
import { BackupTime } from '../ui/time.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChangeSummary } from './change-summary.tsx';
import type { ViewContext } from './context.ts';
import { undoRestoreOffer } from './undo.ts';

/** The policy a proposal is held by: its channel's (with the tenant's rules beside), or the tenant's for one on no channel. */
export type PolicyOf = (channelId: string | null) => Promise<Policy>;

/**
 * The rules that hold a proposal's operation as they stand now: on a channel, the channel's own and
 * the tenant's (the stricter applies); otherwise the tenant's. A proposal counts the rule it was
 * made under (its approvals and permission, above): these say where that came from, and whether it
 * has changed since.
 */
export function ProposalRules({ ctx, proposal, policyOf }: { ctx: ViewContext; proposal: Proposal; policyOf: PolicyOf }) {
  const policy = useLoad(() => policyOf(proposal.channelId), proposal.channelId ?? 'tenant');
  if (policy.error) return <span class="muted">Not readable here</span>;
  if (!policy.data) return <span class="muted">Loading…</span>;
  const rule = (rules: readonly PolicyRule[] | undefined) => rules?.find((candidate) => candidate.operation === proposal.operation);
  const tenantRule = rule(proposal.channelId === null ? policy.data.rules : policy.data.tenantRules);
  const channelRule = proposal.channelId === null ? undefined : rule(policy.data.rules);
  return (
    <ul class="plain-list" aria-label="Rules">
      {proposal.channelId !== null && (
        <li>
          <a href={hrefOf({ view: 'channel-settings' })}>{ctx.channelName(proposal.channelId)}</a>'s policy:{' '}
          <RuleWords rule={channelRule} operation={proposal.operation} />
        </li>
      )}
      <li>
        The tenant's policy: <RuleWords rule={tenantRule} operation={proposal.operation} />
      </li>
      {channelRule && tenantRule && <li class="muted">The stricter of the two applies.</li>}
    </ul>
  );
}

function RuleWords({ rule, operation }: { rule: PolicyRule | undefined; operation: string }) {
  if (!rule) {
    return (
      <span class="muted">
        no rule for <code>{operation}</code>
      </span>
    );
  }
  return (
    <>
      <code>{rule.operation}</code> needs {rule.approvals} {rule.approvals === 1 ? 'approval' : 'approvals'} of admins with{' '}
      <code>{rule.permission}</code>
    </>
  );
}

/** What a held folder or channel restore answered when it ran (docs/approvals.md: `result`). */
interface RestoreResult {
  safetyBackup: string | null;
  replaced: number;
  created: number;
  deleted: number;
  unchanged: number;
}

function restoreResultOf(proposal: Proposal): RestoreResult | undefined {
  const result = proposal.result as Partial<RestoreResult> | null;
  if (proposal.operation !== 'folder.restore' && proposal.operation !== 'channel.restore') return undefined;
  if (result === null || typeof result.replaced !== 'number') return undefined;
  return result as RestoreResult;
}

/**
 * What an executed proposal did: a restore's counts, the safety backup it took first and an undo
 * (the scope restored from that backup, deleting what it lacks: what the console's own restores
 * offer); another operation's result field by field. An invitation's link is shown apart, to its
 * proposer only (InvitationMade).
 */
export function ProposalResult({ ctx, proposal }: { ctx: ViewContext; proposal: Proposal }) {
  if (proposal.status !== 'executed' || proposal.result === null || proposal.operation === 'invitation.create') return null;
  const restored = restoreResultOf(proposal);
  if (!restored) {
    return (
      <>
        <dt>Result</dt>
        <dd>
          <ChangeSummary change={{ before: null, after: proposal.result }} />
        </dd>
      </>
    );
  }
  const counts = [
    `${restored.replaced} replaced`,
    `${restored.created} brought back`,
    `${restored.deleted} deleted`,
    `${restored.unchanged} unchanged`,
  ].join(', ');
  return (
    <>
      <dt>Result</dt>
      <dd>{counts}</dd>
      <dt>Safety backup</dt>
      <dd>
        {restored.safetyBackup && proposal.channelId ? (
          <>
            <a href={hrefOf({ view: 'backups', channel: proposal.channelId })} title="The channel's backups">
              <BackupTime stamp={restored.safetyBackup} />
            </a>{' '}
            <code class="muted">{restored.safetyBackup}</code>
            {ctx.can('files:restore') && <UndoRestore ctx={ctx} proposal={proposal} safetyBackup={restored.safetyBackup} />}
          </>
        ) : (
          <span class="muted">None: nothing changed</span>
        )}
      </dd>
    </>
  );
}

/** Restores the proposal's folder or channel from the safety backup it took, after a confirmation: a restore a policy may hold in turn. */
function UndoRestore({ ctx, proposal, safetyBackup }: { ctx: ViewContext; proposal: Proposal; safetyBackup: string }) {
  const [asking, setAsking] = useState(false);
  const channel = proposal.channelId!;
  const folder = typeof proposal.plan.folder === 'string' ? proposal.plan.folder : undefined;
  const scope = folder ? `the folder ${folder}` : `the whole channel ${ctx.channelName(channel)}`;
  const undo = () => {
    setAsking(false);
    undoRestoreOffer(
      ctx,
      scope,
      () =>
        folder
          ? ctx.client.restoreFolder(channel, folder, { backupTimestamp: safetyBackup, delete: true })
          : ctx.client.restoreChannel(channel, { backupTimestamp: safetyBackup, delete: true }),
      () => undefined,
    ).run();
  };
  return (
    <>
      {' '}
      <button type="button" class="button button-small" onClick={() => setAsking(true)}>
        Undo restore…
      </button>
      {asking && (
        <ConfirmDialog title="Undo this restore?" confirmLabel="Undo restore" onConfirm={undo} onCancel={() => setAsking(false)}>
          <p>
            Brings {scope} back to the backup of {formatBackupTimestamp(safetyBackup)}, taken just before this proposal ran: files it
            replaced or deleted come back, files it brought back are deleted. What they hold now is kept as versions first. A policy may
            hold this restore too: it then waits for approvals.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
