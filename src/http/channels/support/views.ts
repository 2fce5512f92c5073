import type { AdminNameMap } from '../../../files/admin-names.ts';
import type { AuditEvent, AuditIntents } from '../../../model/audit.ts';
import type { BackupLock, BackupRecord } from '../../../model/backups.ts';
import type { Channel } from '../../../model/channels.ts';
import type { FileRecord, FolderSummary } from '../../../model/files.ts';
import type { FileVersion } from '../../../model/versions.ts';
import { formatRfc3339 } from '../../../time/rfc3339.ts';

/** Records as the API shows them: ISO times, no internal keys, admins by id and by name. */
const iso = formatRfc3339;
const nameOf = (names: AdminNameMap, id: string | null) => (id === null ? null : (names.get(id) ?? null));

export const fileView = (f: FileRecord) => ({
  folder: f.folder,
  filename: f.filename,
  size: f.size,
  sha256: f.sha256,
  contentType: f.contentType,
  updatedAt: iso(f.updatedAt),
});

export const versionView = (v: FileVersion) => ({
  id: v.id,
  kind: v.kind,
  timestamp: v.backupTimestamp,
  size: v.size,
  sha256: v.sha256,
  time: iso(v.createdAt),
});

/** A deleted file as the trash lists it: its newest 'deleted' version. */
export const deletedFileView = (v: FileVersion, names: AdminNameMap) => ({
  filename: v.filename,
  deletedAt: iso(v.createdAt),
  deletedBy: v.createdBy,
  deletedByName: nameOf(names, v.createdBy),
  versionId: v.id,
  size: v.size,
  sha256: v.sha256,
});

export const backupView = (b: BackupRecord, names: AdminNameMap) => ({
  timestamp: b.timestamp,
  files: b.files,
  bytes: b.bytes,
  createdBy: b.createdBy,
  createdByName: nameOf(names, b.createdBy),
  origin: b.origin,
  createdAt: iso(b.createdAt),
  lock: b.lock === null ? null : lockView(b.lock),
});

const lockView = (l: BackupLock) => ({
  mode: l.mode,
  until: l.until === null ? null : iso(l.until),
  legalHold: l.legalHold,
  lockedBy: l.lockedBy,
  lockedAt: iso(l.lockedAt),
});

/** Who signed a held operation's intents: the list names them; what they signed is the export's (checked there). */
const intentsSummary = (intents: AuditIntents) => ({
  proposalId: intents.proposalId,
  operation: intents.operation,
  required: intents.required,
  permission: intents.permission,
  approvals: intents.approvals.map(({ adminId, wallet, kind }) => ({ adminId, wallet, kind })),
});

export const auditView = (e: AuditEvent, names: AdminNameMap) => ({
  id: e.id,
  time: iso(e.createdAt),
  adminId: e.adminId,
  adminName: nameOf(names, e.adminId),
  operator: e.operator,
  action: e.action,
  result: e.result,
  code: e.code,
  folder: e.folder,
  filename: e.filename,
  backupTimestamp: e.backupTimestamp,
  versionId: e.versionId,
  at: e.at,
  sha256: e.sha256,
  operationId: e.operationId,
  operation: e.operation,
  intents: e.intents && intentsSummary(e.intents),
  proposalId: e.proposalId,
  change: e.change,
});

export const channelView = (c: Channel) => ({ id: c.id, name: c.name, archived: c.archivedAt !== null, createdAt: iso(c.createdAt) });

export const folderView = (f: FolderSummary) => ({ name: f.name, fileCount: f.fileCount });
