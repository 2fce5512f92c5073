import type { AdminChanges, PrincipalLookup } from './admins.ts';
import type { ApprovalRecords } from './approvals.ts';
import type { AuditLog } from './audit.ts';
import type { Backups } from './backups.ts';
import type { EventRecords } from './events.ts';
import type { LiveFiles } from './files.ts';
import type { ChannelHistory } from './history.ts';
import type { InvitationRecords, WalletChallengeRecords } from './invitations.ts';
import type { OffsiteRecords } from './offsite.ts';
import type { QuotaRecords } from './quotas.ts';
import type { ReadHolds } from './read-holds.ts';
import type { NonceAndRevocationRecords, ServiceSecrets } from './sign-in-records.ts';
import type { TenantOffsiteRecords } from './tenant-offsite.ts';
import type { DemoSeedingRecords, TenantDirectory } from './tenants.ts';
import type { UploadRecords } from './uploads.ts';
import type { KeptVersions } from './versions.ts';
import type { WriteJournal } from './write-journal.ts';

/**
 * The file catalog and the metadata store: the parts above, composed on one database. Consumers
 * are typed against the parts they use, not the whole.
 */

/** Files, versions, backups, history, the write journal and the audit log of every channel, on one database. */
export interface FileCatalog extends LiveFiles, KeptVersions, Backups, ChannelHistory, WriteJournal, AuditLog, QuotaRecords {}

/**
 * Every method of the store and its file catalog reports the database's own failures as AppErrors:
 * SERVICE_UNAVAILABLE when it cannot be reached, INSUFFICIENT_STORAGE when its disk is full.
 */
export interface MetadataStore
  extends TenantDirectory,
    AdminChanges,
    InvitationRecords,
    ApprovalRecords,
    WalletChallengeRecords,
    PrincipalLookup,
    NonceAndRevocationRecords,
    ServiceSecrets,
    DemoSeedingRecords {
  readonly engine: 'sqlite' | 'postgres';
  /** Files, versions, backups and the audit log, on the same database. */
  readonly files: FileCatalog;
  /** The off-site shipper's queue, position and objects (docs/offsite.md). */
  readonly offsite: OffsiteRecords;
  /** Webhooks, where each event destination stands in each chain, and the delivery log (docs/events.md). */
  readonly events: EventRecords;
  /** Tenants' own off-site targets and how far shipping to each has come (docs/offsite.md). */
  readonly tenantOffsite: TenantOffsiteRecords;
  /** Archives' holds of channels' blobs against retention (src/model/read-holds.ts). */
  readonly readHolds: ReadHolds;
  /** Resumable (tus) uploads' state (docs/uploads.md). */
  readonly uploads: UploadRecords;
  /**
   * Runs `work` in one transaction, over the store bound to it: what it writes (a change and its
   * audit entry, above all) commits together, or nothing does when it throws. Inside, use only
   * `tx`: the store itself would wait for the transaction's own connection (SQLite) or its locks.
   */
  atomically<T>(work: (tx: MetadataStore) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
