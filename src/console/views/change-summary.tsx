import type { TenantAuditEvent } from '../../client/index.ts';
import { formatTime } from '../ui/format.ts';
import { proposalHref } from '../ui/held-notice.tsx';

type Change = TenantAuditEvent['change'];

/**
 * What an event changed. A proposal's step and the chain's start say it in words; every other
 * change field by field: only the fields whose value differs, before → after; a record created shows
 * what it was created with, one removed what it was.
 */
export function ChangeSummary({ change, action }: { change: Change; action?: string }) {
  if (!change) return <span class="muted">—</span>;
  if (action?.startsWith('proposal.') && change.after) return <ProposalStep after={change.after} />;
  if (action === 'audit.chain-start' && change.after) return <ChainStart after={change.after} />;
  if (action === 'backup.lock') return <LockChange before={change.before} after={change.after} />;
  if (action === 'backup.delete' && change.before) {
    return (
      <p class="change">
        Backup {shown(change.before.timestamp)} deleted; it was {lockWords((change.before.lock ?? null) as Record<string, unknown> | null)}.
      </p>
    );
  }
  const before = change.before ?? {};
  const after = change.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]),
  );
  if (fields.length === 0) return <span class="muted">No field changed</span>;
  return (
    <dl class="change">
      {fields.map((field) => (
        <div key={field} class="change-field">
          <dt>{field}</dt>
          <dd>
            {field in before && <del>{shown(before[field])}</del>}
            {field in before && field in after && ' → '}
            {field in after && <ins>{shown(after[field])}</ins>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A proposal made, approved, withdrawn, closed or run: what it does, and where it stands. */
function ProposalStep({ after }: { after: Record<string, unknown> }) {
  const id = typeof after.proposalId === 'string' ? after.proposalId : undefined;
  return (
    <p class="change">
      {typeof after.summary === 'string' ? after.summary : shown(after.operation)}{' '}
      {typeof after.status === 'string' && <span class="badge">{after.status}</span>}
      {typeof after.reason === 'string' && <span class="muted block">{after.reason}</span>}
      {id && (
        <a class="block" href={proposalHref(id)}>
          <code>{id}</code>
        </a>
      )}
    </p>
  );
}

/** A backup's lock before → after, in words (the log records `{ timestamp, lock }` on each side). */
function LockChange({ before, after }: { before: Record<string, unknown> | null; after: Record<string, unknown> | null }) {
  const lockOf = (side: Record<string, unknown> | null) => (side?.lock ?? null) as Record<string, unknown> | null;
  return (
    <dl class="change">
      <div class="change-field">
        <dt>lock</dt>
        <dd>
          <del>{lockWords(lockOf(before))}</del> → <ins>{lockWords(lockOf(after))}</ins>
        </dd>
      </div>
    </dl>
  );
}

function lockWords(lock: Record<string, unknown> | null): string {
  if (!lock) return 'not locked';
  const parts: string[] = [];
  if (typeof lock.mode === 'string') parts.push(`${lock.mode} until ${shown(lock.until)}`);
  if (lock.legalHold === true) parts.push('legal hold');
  return parts.length > 0 ? parts.join(', ') : 'not locked';
}

/** The genesis entry of a chain started over a log written before chaining (docs/audit-chain.md). */
function ChainStart({ after }: { after: Record<string, unknown> }) {
  const count = Number(after.preChainEntries ?? 0);
  return (
    <p class="change">
      The verifiable log starts here.{' '}
      {count > 0
        ? `The ${count} ${count === 1 ? 'entry' : 'entries'} written before (seq ${shown(after.firstPreChainSeq)} to ${shown(after.lastPreChainSeq)}) were chained at the upgrade: the chain vouches only that they have not changed since.`
        : 'No entry was written before.'}
    </p>
  );
}

/** RFC 3339 instants as the admin reads times; a policy's rules as sentences; lists joined. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((item) => shown(item)).join(', ');
  if (typeof value === 'string') return /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(value) ? formatTime(value) : value;
  if (value === null) return 'none';
  if (isRule(value)) return `${value.operation}: ${value.approvals} of ${value.permission}`;
  return JSON.stringify(value) ?? '—';
}

function isRule(value: unknown): value is { operation: string; approvals: number; permission: string } {
  return typeof value === 'object' && value !== null && 'operation' in value && 'approvals' in value && 'permission' in value;
}
