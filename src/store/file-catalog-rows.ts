import type { Selectable } from 'kysely';
import type {
  AuditEvent,
  AuditOperation,
  BackupRecord,
  FileRecord,
  FileVersion,
  NewAuditEvent,
  NewFileVersion,
  PendingWrite,
} from './file-catalog-types.ts';
import type { AuditEventsTable, BackupsTable, FilesTable, FileVersionsTable, PendingWritesTable } from './schema.ts';

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

// Built field by field: callers may pass a wider object (a FileRecord spread), whose extra
// members must not reach the INSERT.
export const versionRow = (id: string, v: NewFileVersion): FileVersionsTable => ({
  id,
  channel_id: v.channelId,
  folder: v.folder,
  filename: v.filename,
  kind: v.kind,
  backup_timestamp: v.backupTimestamp,
  blob_key: v.blobKey,
  size: v.size,
  sha256: v.sha256,
  content_type: v.contentType,
  created_at: v.createdAt,
  since_seq: v.sinceSeq ?? null,
  until_seq: null,
  created_by: v.createdBy ?? null,
});

export const toBackupRecord = (row: Selectable<BackupsTable>): BackupRecord => ({
  channelId: row.channel_id,
  timestamp: row.timestamp,
  files: row.files,
  bytes: row.bytes,
  createdBy: row.created_by,
  createdAt: row.created_at,
  seq: row.seq === null ? null : Number(row.seq),
});

export const backupRow = (b: BackupRecord): BackupsTable => ({
  channel_id: b.channelId,
  timestamp: b.timestamp,
  files: b.files,
  bytes: b.bytes,
  created_by: b.createdBy,
  created_at: b.createdAt,
  seq: b.seq ?? null,
});

export const toAuditEvent = (row: Selectable<AuditEventsTable>): AuditEvent => ({
  id: row.id,
  tenantId: row.tenant_id,
  channelId: row.channel_id,
  adminId: row.admin_id,
  action: row.action,
  folder: row.folder,
  filename: row.filename,
  backupTimestamp: row.backup_timestamp,
  versionId: row.version_id,
  result: row.result,
  code: row.code,
  sha256: row.sha256,
  createdAt: row.created_at,
  operationId: row.operation_id,
  operation: row.operation_details === null ? null : (JSON.parse(row.operation_details) as AuditOperation),
});

export const auditRow = (id: string, e: NewAuditEvent): AuditEventsTable => ({
  id,
  tenant_id: e.tenantId,
  channel_id: e.channelId,
  admin_id: e.adminId,
  action: e.action,
  folder: e.folder,
  filename: e.filename,
  backup_timestamp: e.backupTimestamp,
  version_id: e.versionId,
  result: e.result,
  code: e.code,
  sha256: e.sha256,
  created_at: e.createdAt,
  operation_id: e.operationId,
  operation_details: e.operation === null ? null : JSON.stringify(e.operation),
});

export const toPendingWrite = (row: Selectable<PendingWritesTable>): PendingWrite => ({
  id: row.id,
  channelId: row.channel_id,
  folder: row.folder,
  filename: row.filename,
  sha256: row.sha256,
  size: row.size,
  contentType: row.content_type,
  startedAt: row.started_at,
});

export const pendingWriteRow = (id: string, w: Omit<PendingWrite, 'id'>): PendingWritesTable => ({
  id,
  channel_id: w.channelId,
  folder: w.folder,
  filename: w.filename,
  sha256: w.sha256,
  size: w.size,
  content_type: w.contentType,
  started_at: w.startedAt,
});
