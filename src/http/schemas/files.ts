import { Type } from 'typebox';
import { MAX_AUDIT_ID_LENGTH, MAX_AUDIT_NAME_LENGTH } from '../../files/audit-filter.ts';
import { AUDIT_ACTIONS, AUDIT_RESULTS } from '../../model/audit.ts';
import { BACKUP_ORIGINS, LOCK_MODES } from '../../model/backups.ts';
import { EXAMPLE_BACKUP_TIMESTAMP, EXAMPLE_PATH } from './examples.ts';
import { ENTITY_TAG, responseHeader } from './response-header-shapes.ts';

// Each with the demo's value as its example, which the reference's "Try it out" starts from.
export const channelRef = Type.String({ description: 'Channel id (chn_…) or name in your tenant', examples: [EXAMPLE_PATH.channelRef] });
const folderName = Type.String({ description: 'A folder of the channel (one path segment)', examples: [EXAMPLE_PATH.folderName] });
const filename = Type.String({ description: 'A file of the folder (one path segment)', examples: [EXAMPLE_PATH.filename] });
// No pattern: a malformed one is INVALID_TIMESTAMP, as on the restore, not a schema refusal.
const backupTimestamp = Type.String({
  maxLength: 40,
  description: 'A backup of the channel, yyyyMMdd_HHmmss (UTC)',
  examples: [EXAMPLE_BACKUP_TIMESTAMP],
});

export const ChannelParams = Type.Object({ channelRef });
export const FolderParams = Type.Object({ channelRef, folderName });
export const FileParams = Type.Object({ channelRef, folderName, filename });

export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50, description: 'Items per page' })),
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: "Where the page begins: the previous page's next (opaque)" })),
});

/** The audit log's filters, each optional, combined with AND; the same filters go with every page's cursor. */
export const AuditQuery = Type.Object({
  ...PageQuery.properties,
  action: Type.Optional(Type.Enum([...AUDIT_ACTIONS], { description: 'Only events of this action' })),
  adminId: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AUDIT_ID_LENGTH, description: 'Only events of this admin (adm_…)' })),
  folder: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_AUDIT_NAME_LENGTH,
      description: 'Only events naming this folder (in either Unicode spelling, NFC or NFD)',
    }),
  ),
  filename: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_AUDIT_NAME_LENGTH,
      description: 'Only events naming this file name (in either Unicode spelling, NFC or NFD)',
    }),
  ),
  result: Type.Optional(Type.Enum([...AUDIT_RESULTS], { description: 'ok, refused (4xx) or failed (5xx)' })),
  operationId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_AUDIT_ID_LENGTH,
      description: "Only the events of this folder or channel restore (op_…): its own, its safety backup's and its files'",
    }),
  ),
});

export const FileSchema = Type.Object({
  folder: Type.String(),
  filename: Type.String(),
  size: Type.Integer(),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  contentType: Type.String(),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const VersionSchema = Type.Object({
  id: Type.String(),
  kind: Type.String({ description: 'backup, replaced (kept by an upload or restore) or deleted' }),
  timestamp: Type.Union([Type.String({ pattern: '^\\d{8}_\\d{6}$' }), Type.Null()], { description: 'The backup it belongs to' }),
  size: Type.Integer(),
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  time: Type.String({ format: 'date-time' }),
});

/** An admin's display name now, beside the id a record names them by; null without an admin, or for one no longer there. */
export const adminName = (of: string) =>
  Type.Union([Type.String(), Type.Null()], { description: `The display name (now) of the admin ${of}; null when there is none` });

export const BackupLockSchema = Type.Object({
  mode: Type.Union([Type.Enum([...LOCK_MODES]), Type.Null()], {
    description:
      'governance: an owner may shorten or lift it; compliance: nobody may before until, only extend it; null: no retention lock',
  }),
  until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the retention lock ends; null exactly when mode is. Past it the lock holds no more',
  }),
  legalHold: Type.Boolean({ description: 'Held until an owner releases it, whatever the date' }),
  lockedBy: Type.Union([Type.String(), Type.Null()], { description: "The admin who last changed the lock; null for the operator's CLI" }),
  lockedAt: Type.String({ format: 'date-time', description: 'When the lock was last changed' }),
});

export const BackupSchema = Type.Object({
  timestamp: Type.String({ pattern: '^\\d{8}_\\d{6}$' }),
  files: Type.Integer(),
  bytes: Type.Integer(),
  createdBy: Type.Union([Type.String(), Type.Null()], {
    description: 'The admin (adm_…) who made it: through the API, a restore, or the demo seed; null for the schedule and the CLI',
  }),
  createdByName: adminName('in createdBy'),
  origin: Type.Union([Type.Enum([...BACKUP_ORIGINS]), Type.Null()], {
    description:
      "What made it: api (an admin's request), schedule (BACKUP_INTERVAL), cli (wallet-admin backup create), restore (the safety " +
      'backup a folder or channel restore takes first) or demo (the demo data of a first start); null for a backup made before the ' +
      'service recorded this',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  lock: Type.Union([BackupLockSchema, Type.Null()], {
    description: 'Its lock and legal hold (docs/backup-locks.md); null when it has neither',
  }),
});

export const BackupParams = Type.Object({ channelRef, backupTimestamp });

/**
 * A change of a backup's lock. Not required one by one: which go together (mode with until) and
 * that something is asked is checked by backup-lock-rules.ts, whose refusals name the members.
 */
export const BackupLockBody = Type.Object(
  {
    mode: Type.Optional(Type.Enum([...LOCK_MODES], { description: 'governance or compliance; with until', examples: ['compliance'] })),
    until: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'RFC 3339: when the lock ends; in the future, at most BACKUP_LOCK_MAX_DAYS (365 by default) from now; with mode',
        examples: ['2027-05-26T00:00:00Z'],
      }),
    ),
    legalHold: Type.Optional(Type.Boolean({ description: 'true: hold until released; false: release (an owner only)' })),
  },
  { additionalProperties: false },
);

/** A chain's list item names who signed; the export carries what each signed, to be checked offline. */
const AuditIntentsSummarySchema = Type.Object({
  proposalId: Type.String({ description: 'prp_…' }),
  operation: Type.String({ description: 'The held operation (backup.delete, channel.restore, …)' }),
  required: Type.Integer({ minimum: 1, description: "Distinct admins' intents the policy asked for" }),
  permission: Type.String({ description: 'The permission an approver had to hold' }),
  approvals: Type.Array(
    Type.Object({
      adminId: Type.String(),
      wallet: Type.String({ description: 'The wallet that signed the intent' }),
      kind: Type.Enum(['eoa', 'contract'], {
        description: "eoa: checked offline by recovery; contract: EIP-1271, needs the wallet's chain",
      }),
    }),
  ),
});

export const AuditEventSchema = Type.Object({
  id: Type.String(),
  time: Type.String({ format: 'date-time' }),
  adminId: Type.Union([Type.String(), Type.Null()]),
  adminName: adminName('in adminId'),
  operator: Type.Union([Type.String(), Type.Null()], {
    description:
      "Who acted when no admin did: the operator's label (OPERATOR_LABEL) on an event of the operator's local CLI; " +
      'null for an admin and for the service itself (adminId null: the schedule, retention, the demo seed)',
  }),
  action: Type.String(),
  result: Type.String(),
  code: Type.Union([Type.String(), Type.Null()]),
  folder: Type.Union([Type.String(), Type.Null()]),
  filename: Type.Union([Type.String(), Type.Null()]),
  backupTimestamp: Type.Union([Type.String(), Type.Null()]),
  versionId: Type.Union([Type.String(), Type.Null()]),
  at: Type.Union([Type.String(), Type.Null()], {
    description: 'A restore to an instant: the instant asked for (RFC 3339, as asked); versionId names the version it found then',
  }),
  sha256: Type.Union([Type.String(), Type.Null()]),
  operationId: Type.Union([Type.String(), Type.Null()], {
    description:
      'The folder or channel restore this event belongs to (op_…), on its own event, its safety backup and each file it restored or deleted; ' +
      'list them with ?operationId=',
  }),
  operation: Type.Union(
    [
      Type.Object({
        scope: Type.Enum(['folder', 'channel'], { description: 'A folder (named by folder) or the whole channel' }),
        at: Type.Union([Type.String(), Type.Null()], { description: 'The instant restored, as asked; null when a backup was named' }),
        delete: Type.Boolean(),
        dryRun: Type.Boolean(),
        safetyBackup: Type.Union([Type.String(), Type.Null()], { description: 'The backup taken before the first change' }),
        counts: Type.Object(
          {
            replaced: Type.Integer(),
            created: Type.Integer(),
            deleted: Type.Integer(),
            unchanged: Type.Integer(),
            failed: Type.Integer(),
          },
          { description: 'Files done per action, left alone (unchanged), and whose restore or delete failed' },
        ),
      }),
      Type.Null(),
    ],
    { description: "A folder or channel restore's own event: what it was asked and what it did; null on every other event" },
  ),
  intents: Type.Union([AuditIntentsSummarySchema, Type.Null()], {
    description:
      'The signed intents that made a held operation run (docs/approvals.md): the proposal and who approved it; null on every other event. ' +
      'Their typed data and signatures are in the export (GET /api/audit/export), which checks them',
  }),
  proposalId: Type.Union([Type.String(), Type.Null()], {
    description: 'The proposal (prp_…) whose run made this event: every step of a held operation carries it; null otherwise',
  }),
  change: Type.Union(
    [
      Type.Object({
        before: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
        after: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
      }),
      Type.Null(),
    ],
    {
      description:
        "What a change of a record kept beside the files did, before and after: a backup's lock (backup.lock, backup.delete), what a retention run removed (retention: before holds { backups, versions, blobs }); null for every other event",
    },
  ),
});

export const pageOf = <T extends ReturnType<typeof Type.Object>>(item: T) =>
  Type.Object({ items: Type.Array(item), next: Type.Union([Type.String(), Type.Null()]) });

/** An instant of a channel's history (RFC 3339): its state then, as far as retention still holds it. */
export const instantParameter = (description: string) =>
  Type.Optional(Type.String({ format: 'date-time', maxLength: 100, description: `${description}, RFC 3339, e.g. 2026-11-23T15:04:05Z` }));

export const RestoreQuery = Type.Object({
  backupTimestamp: Type.Optional(Type.String({ description: 'yyyyMMdd_HHmmss; default: the newest backup holding the file' })),
  versionId: Type.Optional(Type.String({ description: 'A version id from …/versions, instead of a backup' })),
  at: instantParameter('Instead of a backup: the file as it was at this instant'),
});

/** A signed link's two parameters: opaque, copied from the URL a restore or the client's link gave. */
export const DownloadQuery = Type.Object({
  expires: Type.Optional(
    Type.String({ description: "Signed link: the link's expiry as the service wrote it (with signature, no wallet headers are needed)" }),
  ),
  signature: Type.Optional(Type.String({ description: "Signed link: the service's signature of the path and expires" })),
});

const IF_MATCH = Type.Optional(
  Type.String({
    description: 'Proceed only if the live file exists and its ETag ("<sha256>") is listed, or exists at all for *; weak tags never match',
  }),
);

/** A DELETE's and a restore's condition (If-None-Match is refused there: 400). */
export const IfMatchHeaders = Type.Object({ 'if-match': IF_MATCH });

/** An upload's conditions; If-Match is checked first. */
export const UploadHeaders = Type.Object({
  'if-match': IF_MATCH,
  'if-none-match': Type.Optional(
    Type.String({ description: '* : create only (no live file may exist); tags: proceed only if the live ETag is not listed' }),
  ),
});

/** An upload's answer: the file, and its ETag header, the tag the next write's If-Match names. */
export const UploadedFileSchema = Type.Object(FileSchema.properties, {
  headers: { ETag: responseHeader('The strong ETag of the content written: "<sha256>"', ENTITY_TAG, true) },
});
