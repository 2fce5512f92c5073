import type { Selectable } from 'kysely';
import type { AuditChange, AuditEvent, AuditIntents, AuditOperation, NewAuditEvent } from '../../model/audit.ts';
import type { BackupLock, BackupRecord } from '../../model/backups.ts';
import type { FileRecord } from '../../model/files.ts';
import type { FileVersion } from '../../model/versions.ts';
import type { PendingWrite } from '../../model/write-journal.ts';
import type { AuditEventsTable, BackupsTable, FilesTable, FileVersionsTable, PendingWritesTable } from '../schema.ts';

/** Row ↔ record mapping for the file catalog tables, in one place. */
export const toFileRecord = (row: Selectable<FilesTable>): FileRecord => ({
  channelId: row.channel_id,
  folder: row.folder,
  filename: row.filename,
  size: row.size,
  sha256: row.sha256,
  contentType: row.content_type,
  updatedAt: row.updated_at,
  sinceSeq: Number(row.since_seq),
  blobKey: row.blob_key,
});

export const fileRow = (file: FileRecord, sinceSeq: number): FilesTable => ({
  channel_id: file.channelId,
  folder: file.folder,
  filename: file.filename,
  size: file.size,
  sha256: file.sha256,
  content_type: file.contentType,
  updated_at: file.updatedAt,
  since_seq: sinceSeq,
  blob_key: file.blobKey,
});

export const toFileVersion = (row: Selectable<FileVersionsTable>): FileVersion => ({
  id: row.id,
  channelId: row.channel_id,
  folder: row.folder,
  filename: row.filename,
  kind: row.kind,
  backupTimestamp: row.backup_timestamp,
  blobKey: row.blob_key,
  size: row.size,
  sha256: row.sha256,
  contentType: row.content_type,
  createdAt: row.created_at,
  sinceSeq: row.since_seq === null ? null : Number(row.since_seq),
  createdBy: row.created_by,
});

/**
 * The version that keeps a live record's bytes once a write replaces or deletes them: it takes
 * over the record's blob, and its span ends at the write's seq.
 */
export const keptVersionRow = (
  id: string,
  live: Selectable<FilesTable>,
  how: { kind: 'replaced' | 'deleted'; at: number; untilSeq: number; createdBy: string | null },
): FileVersionsTable => ({
  id,
  channel_id: live.channel_id,
  folder: live.folder,
  filename: live.filename,
  kind: how.kind,
  backup_timestamp: null,
  blob_key: live.blob_key,
  size: Number(live.size),
  sha256: live.sha256,
  content_type: live.content_type,
  created_at: how.at,
  since_seq: Number(live.since_seq),
  until_seq: how.untilSeq,
  created_by: how.createdBy,
});

export const toBackupRecord = (row: Selectable<BackupsTable>): BackupRecord => ({
  channelId: row.channel_id,
  timestamp: row.timestamp,
  files: row.files,
  bytes: row.bytes,
  createdBy: row.created_by,
  origin: row.origin,
  createdAt: row.created_at,
  seq: row.seq === null ? null : Number(row.seq),
  lock: toBackupLock(row),
});

/** The lock columns as a BackupLock; null when neither a retention lock nor a legal hold is stored. */
export function toBackupLock(
  row: Pick<BackupsTable, 'lock_mode' | 'lock_until' | 'legal_hold' | 'locked_by' | 'locked_at'>,
): BackupLock | null {
  const legalHold = Number(row.legal_hold) === 1;
  if (row.lock_mode === null && !legalHold) return null;
  return {
    mode: row.lock_mode,
    until: row.lock_until === null ? null : Number(row.lock_until),
    legalHold,
    lockedBy: row.locked_by,
    // Every change of a lock records when; 0 (1970) would only show a row edited by hand.
    lockedAt: Number(row.locked_at ?? 0),
  };
}

/** A BackupLock (null: none) as its columns; an empty lock stores no author either. */
export const backupLockColumns = (lock: BackupLock | null) => ({
  lock_mode: lock?.mode ?? null,
  lock_until: lock?.until ?? null,
  legal_hold: lock?.legalHold ? 1 : 0,
  locked_by: lock?.lockedBy ?? null,
  locked_at: lock?.lockedAt ?? null,
});

export const backupRow = (b: BackupRecord): BackupsTable => ({
  channel_id: b.channelId,
  timestamp: b.timestamp,
  files: b.files,
  bytes: b.bytes,
  created_by: b.createdBy,
  origin: b.origin,
  created_at: b.createdAt,
  seq: b.seq ?? null,
  ...backupLockColumns(b.lock),
});

export const toAuditEvent = (row: Selectable<AuditEventsTable>): AuditEvent => ({
  id: row.id,
  tenantId: row.tenant_id,
  channelId: row.channel_id === NO_CHANNEL ? null : row.channel_id,
  adminId: row.admin_id,
  action: row.action,
  folder: row.folder,
  filename: row.filename,
  backupTimestamp: row.backup_timestamp,
  versionId: row.version_id,
  at: row.restore_at,
  result: row.result,
  code: row.code,
  sha256: row.sha256,
  createdAt: row.created_at,
  operationId: row.operation_id,
  operation: row.operation_details === null ? null : (JSON.parse(row.operation_details) as AuditOperation),
  targetAdminId: row.target_admin_id,
  change: row.change_details === null ? null : (JSON.parse(row.change_details) as AuditChange),
  // `== null`: a row read before migration 018 has no such column.
  intents: row.intents == null ? null : (JSON.parse(row.intents) as AuditIntents),
  // `?? null`: a row read before migration 020 has no such columns.
  operator: row.operator ?? null,
  proposalId: row.proposal_id ?? null,
});

export const auditRow = (id: string, e: NewAuditEvent): AuditEventsTable => ({
  id,
  tenant_id: e.tenantId,
  channel_id: e.channelId ?? NO_CHANNEL,
  admin_id: e.adminId,
  action: e.action,
  folder: e.folder,
  filename: e.filename,
  backup_timestamp: e.backupTimestamp,
  version_id: e.versionId,
  restore_at: e.at,
  result: e.result,
  code: e.code,
  sha256: e.sha256,
  created_at: e.createdAt,
  operation_id: e.operationId,
  operation_details: e.operation === null ? null : JSON.stringify(e.operation),
  target_admin_id: e.targetAdminId ?? null,
  change_details: e.change == null ? null : JSON.stringify(e.change),
  intents: e.intents == null ? null : JSON.stringify(e.intents),
  operator: e.operator ?? null,
  proposal_id: e.proposalId ?? null,
  // Given their values by the append, which reads the chain's head (audit-chain-records.ts).
  chain_seq: null,
  prev_hash: null,
  entry_hash: null,
});

/** The channel_id of an event that concerns no channel (migration 016: the column is NOT NULL on SQLite). */
export const NO_CHANNEL = '';

export const toPendingWrite = (row: Selectable<PendingWritesTable>): PendingWrite => ({
  id: row.id,
  channelId: row.channel_id,
  folder: row.folder,
  filename: row.filename,
  blobKey: row.blob_key,
  startedAt: Number(row.started_at),
  abandonedAt: row.abandoned_at === null ? null : Number(row.abandoned_at),
  ...(row.blob_key === null
    ? { legacy: { sha256: row.sha256, size: row.size === null ? null : Number(row.size), contentType: row.content_type } }
    : {}),
});
