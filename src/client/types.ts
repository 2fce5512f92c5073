// The answers' types come from the TypeBox schemas the routes validate and serialise with, as
// type-only imports: nothing of the server is bundled into the client.
import type { Static } from 'typebox';
import type { AuthTestResponseSchema, NonceResponseSchema, PrincipalSchema } from '../http/schemas/auth.ts';
import type { ChannelSchema, FolderSchema } from '../http/schemas/channels.ts';
import type {
  AuditEventSchema,
  AuditQuery as AuditQuerySchema,
  BackupSchema,
  FileSchema,
  PageQuery,
  VersionSchema,
} from '../http/schemas/files.ts';
import type { ChangesQuery as ChangesQuerySchema, DeletedFileSchema, FileChangeSchema } from '../http/schemas/history.ts';
import type { ScopeRestoreResultSchema } from '../http/schemas/scope-restore.ts';

export type Principal = Static<typeof PrincipalSchema>;
export type AuthTestResponse = Static<typeof AuthTestResponseSchema>;
export type NonceResponse = Static<typeof NonceResponseSchema>;
export type FileInfo = Static<typeof FileSchema>;
export type FileVersion = Static<typeof VersionSchema>;
/** A backup: `origin` says what made it (api, schedule, cli, restore, demo; null when not recorded), `createdBy`/`createdByName` which admin. */
export type Backup = Static<typeof BackupSchema>;
export type AuditEvent = Static<typeof AuditEventSchema>;
export type ChannelInfo = Static<typeof ChannelSchema>;
export type FolderInfo = Static<typeof FolderSchema>;
/** A deleted file that can still be restored: `restore(…, { versionId })` brings it back. */
export type DeletedFile = Static<typeof DeletedFileSchema>;
/** A file added, changed or deleted between two backups (or a backup and now). */
export type FileChange = Static<typeof FileChangeSchema>;
/** `from` (a backup) or `fromAt` (an instant), optional `to` or `toAt` (default: now) and `folder`, and the page. */
export type ChangesQuery = Omit<Static<typeof ChangesQuerySchema>, 'fromAt' | 'toAt'> & { fromAt?: Date | string; toAt?: Date | string };
/**
 * What a folder or channel restore changed (or, for a dry run, would change), its safety backup,
 * and `etag`, the plan's ETag (the answer's ETag header): pass it as `ifMatch` to restore exactly
 * the plan a dry run showed.
 */
export type ScopeRestoreResult = Static<typeof ScopeRestoreResultSchema> & { etag: string };
/** `?limit=` (1–1000, 50 by default) and `?cursor=` (a page's `next`). */
export type PageRequest = Static<typeof PageQuery>;
/** A page of the audit log, and its filters: action, adminId, folder, filename, result, operationId (AND). */
export type AuditQuery = Static<typeof AuditQuerySchema>;

/** Every list answers one page: the items and the cursor of the next page, null on the last. */
export interface Page<T> {
  items: T[];
  next: string | null;
}
