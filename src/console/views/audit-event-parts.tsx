import type { ComponentChildren } from 'preact';
import type { AuditEvent } from '../../client/index.ts';
import { formatTime } from '../ui/format.ts';
import { BackupTime, Time } from '../ui/time.tsx';

/* What an audit event names, in words: shared by the channel's log and the tenant's. */

/** A folder or channel restore's own event in a few words: its scope and what it did. */
export function operationSummary(operation: NonNullable<AuditEvent['operation']>): string {
  const { counts } = operation;
  const done = (
    [
      [counts.replaced, 'replaced'],
      [counts.created, 'brought back'],
      [counts.deleted, 'deleted'],
      [counts.failed, 'failed'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`);
  const scope = operation.scope === 'channel' ? 'whole channel' : 'folder';
  const at = operation.at ? ` at ${Number.isNaN(Date.parse(operation.at)) ? operation.at : formatTime(operation.at)}` : '';
  return `${scope}${at}: ${done.length > 0 ? done.join(', ') : 'nothing to change'}, ${counts.unchanged} unchanged`;
}

/**
 * The backup or version an event names, in words: a backup by its time (what a backup made, or a
 * restore took its bytes from); a restore to an instant by the instant asked for (the version it
 * found there on hover); a kept version (its id on hover), restored from or kept by a delete.
 */
export function BackupOrVersion({ event }: { event: AuditEvent }) {
  if (event.backupTimestamp) {
    return (
      <>
        Backup of <BackupTime stamp={event.backupTimestamp} />
      </>
    );
  }
  if (event.at) {
    return <span title={event.versionId ? `Found there: version ${event.versionId}` : undefined}>State at {formatInstant(event.at)}</span>;
  }
  if (event.versionId) {
    return <span title={event.versionId}>{event.action === 'delete' ? 'Kept as a version' : 'A kept version'}</span>;
  }
  if (event.action === 'retention') return <Pruned change={event.change} />;
  return <span class="muted">—</span>;
}

/** What a retention run removed: the backups by name, and how many versions. */
function Pruned({ change }: { change: AuditEvent['change'] }) {
  const { backups = [], versions = 0 } = (change?.before ?? {}) as { backups?: string[]; versions?: number };
  const named = backups.length === 0 ? 'no backup' : backups.length === 1 ? '1 backup' : `${backups.length} backups`;
  return (
    <span title={backups.join(', ')}>
      Removed {named} and {versions === 1 ? '1 version' : `${versions} versions`}
    </span>
  );
}

/** An instant as asked: shown in the admin's zone when it is one, else exactly as it was sent (a refused one). */
function formatInstant(at: string): ComponentChildren {
  return Number.isNaN(Date.parse(at)) ? at : <Time value={at} />;
}
