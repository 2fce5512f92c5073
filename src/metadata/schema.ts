import type { Generated } from 'kysely';
import type { AdminStatus } from '../model/admins.ts';
import type { AuditAction, AuditResult } from '../model/audit.ts';
import type { BackupOrigin, LockMode } from '../model/backups.ts';
import type { VersionKind } from '../model/versions.ts';

/** Row shapes as stored; times are epoch milliseconds (bigint in PostgreSQL, integer in SQLite). */
export interface TenantsTable {
  id: string;
  name: string;
  created_at: number;
  /** The tenant's quota (migration 026, docs/quotas.md); null: none. */
  quota_max_bytes: number | null;
  quota_max_files: number | null;
}

export interface TenantFeaturesTable {
  tenant_id: string;
  feature: string;
}

export interface AdminsTable {
  id: string;
  tenant_id: string;
  wallet: string;
  display_name: string;
  owner_admin_id: string | null;
  status: AdminStatus;
  created_at: number;
  updated_at: number;
  /** Messages the admin signed before this instant no longer authenticate (migration 008). */
  signed_out_before: number | null;
  /** When the admin was removed (migration 016); its record stays for the audit log. */
  removed_at: number | null;
  /** Raised by every change of the admin, its permissions, wallets or channels: its ETag (migration 016). */
  revision: Generated<number>;
}

/** Every wallet of every admin (migration 016): the wallet is the key, so it has one admin at most. */
export interface AdminWalletsTable {
  wallet: string;
  admin_id: string;
  tenant_id: string;
  added_at: number;
}

/** Invitations (migration 016): the token only by its SHA-256; permissions and channel_ids are JSON arrays. */
export interface ApprovalPoliciesTable {
  tenant_id: string;
  /** '' for the tenant's own policy. */
  channel_id: string;
  /** JSON of PolicyRule[]. */
  rules: string;
  revision: number;
  updated_at: number;
  updated_by: string;
}

export interface ProposalsTable {
  id: string;
  tenant_id: string;
  channel_id: string | null;
  operation: string;
  status: string;
  proposed_by: string;
  created_at: number;
  expires_at: number;
  required: number;
  permission: string;
  plan: string;
  plan_etag: string;
  summary: string;
  typed_data: string;
  eligible_admin_ids: string;
  reason: string | null;
  result: string | null;
  finished_at: number | null;
  /** Migration 020: the run's lease (proposal-runs.ts), the chain head it began at, and its takeovers. */
  lease_token: string | null;
  lease_until: number | null;
  run_from_seq: number | null;
  run_attempts: number;
}

export interface ProposalApprovalsTable {
  proposal_id: string;
  admin_id: string;
  wallet: string;
  signature: string;
  kind: string;
  approved_at: number;
}

export interface InvitationsTable {
  id: string;
  tenant_id: string;
  inviter_admin_id: string;
  token_hash: string;
  display_name: string | null;
  wallet: string | null;
  permissions: string;
  channel_ids: string;
  created_at: number;
  expires_at: number;
  accepted_at: number | null;
  accepted_admin_id: string | null;
  revoked_at: number | null;
}

/** The messages a new wallet was asked to sign to join an admin (migration 016), by their SHA-256. */
export interface WalletChallengesTable {
  message_hash: string;
  admin_id: string;
  wallet: string;
  chain_id: number;
  expires_at: number;
  used_at: number | null;
}

export interface AdminPermissionsTable {
  admin_id: string;
  permission: string;
}

export interface AdminFeaturesTable {
  admin_id: string;
  feature: string;
}

export interface ChannelsTable {
  id: string;
  tenant_id: string;
  name: string;
  created_at: number;
  /** When the channel was archived (read-only); null: it is not (migration 016). */
  archived_at: number | null;
  /** The channel's quota, within its tenant's (migration 026, docs/quotas.md); null: none. */
  quota_max_bytes: number | null;
  quota_max_files: number | null;
}

export interface ChannelAdminsTable {
  channel_id: string;
  admin_id: string;
  // Carried so that composite foreign keys can refuse a link across tenants.
  tenant_id: string;
}

export interface AuthNoncesTable {
  nonce: string;
  expires_at: number;
  message_hash: string | null;
}

export interface RevokedMessagesTable {
  message_hash: string;
  expires_at: number;
  /** When it was logged out; 0 for revocations from before migration 008. */
  revoked_at: number;
}

/** Keys shared by every instance on this database (migration 008). */
export interface ServiceSecretsTable {
  name: string;
  value: string;
}

/** Where the demo data of a first start stands (migration 014): one row, name 'demo'. */
export interface DemoSeedingTable {
  name: string;
  begun_at: number;
  completed_at: number | null;
}

export interface FilesTable {
  channel_id: string;
  folder: string;
  filename: string;
  size: number;
  sha256: string;
  content_type: string;
  updated_at: number;
  /** Written by the migration's default for files older than it; set by every write after. */
  since_seq: number;
  /** Where the bytes are (migration 011): a key no other row names, written before the row. */
  blob_key: string;
}

export interface ChannelClocksTable {
  channel_id: string;
  seq: number;
  files: number;
  bytes: number;
  /** The oldest seq whose state retention still holds completely (migration 006). */
  retained_from_seq: number;
  /** When that seq was ticked; null: from the channel's first tick. */
  retained_from_at: number | null;
  /** The time of the newest tick (migration 010); null only before the migration's backfill ran. */
  tick_at: number | null;
  /** The kept versions of the channel's files, each record once (migration 026): with files and bytes, its usage. */
  kept_files: Generated<number>;
  kept_bytes: Generated<number>;
}

/** Live files per folder of a channel, kept by every write (migration 007); no row for a folder without any. */
export interface FolderCountsTable {
  channel_id: string;
  folder: string;
  files: number;
}

/** One advance of a channel's clock and when its write happened (migration 006). */
export interface ClockTicksTable {
  channel_id: string;
  seq: number;
  at: number;
}

export interface BackupsTable {
  channel_id: string;
  timestamp: string;
  files: number;
  bytes: number;
  created_by: string | null;
  /** What made it (migration 012); null for backups made before. */
  origin: BackupOrigin | null;
  created_at: number;
  /** The instant of the channel's history it names; null for backups from before migration 005. */
  seq: number | null;
  /** Migration 017: the retention lock (mode and end, both set or both null), the legal hold (0/1), who last changed them and when. */
  lock_mode: LockMode | null;
  lock_until: number | null;
  legal_hold: number;
  locked_by: string | null;
  locked_at: number | null;
}

export interface FileVersionsTable {
  id: string;
  channel_id: string;
  folder: string;
  filename: string;
  kind: VersionKind;
  backup_timestamp: string | null;
  blob_key: string;
  size: number;
  sha256: string;
  content_type: string;
  created_at: number;
  /** The span of the channel clock when these bytes were live (replaced and deleted versions). */
  since_seq: number | null;
  until_seq: number | null;
  /** The admin whose delete kept this version (migration 004); null otherwise and for older rows. */
  created_by: string | null;
}

export interface AuditEventsTable {
  id: string;
  tenant_id: string;
  channel_id: string;
  admin_id: string | null;
  action: AuditAction;
  folder: string | null;
  filename: string | null;
  backup_timestamp: string | null;
  version_id: string | null;
  /** The instant a restore was asked for (migration 013); null otherwise and for older events. */
  restore_at: string | null;
  result: AuditResult;
  code: string | null;
  sha256: string | null;
  created_at: number;
  /** Migration 009: the operation the event belongs to, and a scope restore's own record of it (JSON of AuditOperation). */
  operation_id: string | null;
  operation_details: string | null;
  /** Migration 016: an administration event's admin acted upon, and its record before and after (JSON of AuditChange). */
  target_admin_id: string | null;
  change_details: string | null;
  /**
   * Migration 018 (docs/audit-chain.md): the event's place in its tenant's chain (1, 2, 3… per
   * tenant), the hash of the entry before it and its own; and the intents it carries (JSON of AuditIntents).
   */
  chain_seq: number | null;
  prev_hash: string | null;
  entry_hash: string | null;
  intents: string | null;
  /** Migration 020: the operator's label on an event of the operator's CLI, and the proposal whose run made the event. */
  operator: string | null;
  proposal_id: string | null;
}

/** Migration 018: each tenant's chain head, the row every append reads and advances under its lock. */
export interface AuditHeadsTable {
  tenant_id: string;
  seq: number;
  hash: string;
  updated_at: number;
}

export interface PendingWritesTable {
  id: string;
  channel_id: string;
  folder: string;
  filename: string;
  sha256: string | null;
  size: number | null;
  content_type: string | null;
  started_at: number;
  /** The bytes the write stored (migration 011); null for an entry of the previous release. */
  blob_key: string | null;
  /** When the write was given up: its bytes are being removed, nothing may record them (migration 011). */
  abandoned_at: number | null;
}

/** A file whose public copy (S3_PUBLIC_BASE_URL) must follow its record (migration 011). */
export interface PublicCopiesDueTable {
  channel_id: string;
  folder: string;
  filename: string;
  queued_at: number;
}

/**
 * A name an older release stored in another form than NFC, with its NFC form (migration 015): how a
 * caller's name in either spelling finds it. scope_id: the channel of a folder or file name, the
 * tenant of a channel name.
 */
export interface LegacySpellingsTable {
  scope_id: string;
  kind: 'folder' | 'file' | 'channel';
  spelling: string;
  name: string;
}

/** Migration 022 (src/offsite): every change of a shipped table, captured by a trigger in its own transaction. */
export interface OffsiteChangesTable {
  seq: Generated<number>;
  table_name: string;
  op: 'insert' | 'update' | 'delete';
  /** JSON of the primary key before an update or delete. */
  old_key: string | null;
  /** JSON of the row after an insert or update. */
  row: string | null;
  /** PostgreSQL's transaction id (txid_current()); null on SQLite, whose commits are in seq order. */
  xid: number | null;
  at: number;
  segment: number | null;
}

/** Migration 022: the shipper's position and what `offsite status` shows; one row, name 'shipper'. */
export interface OffsiteStateTable {
  name: string;
  target: string;
  target_id: string;
  generation: string | null;
  generation_at: number | null;
  schema_version: string | null;
  segment: number | null;
  segment_hash: string | null;
  segment_at: number | null;
  audit_heads: string | null;
  pending_segment: number | null;
  pending_at: number | null;
  capture_from: number | null;
  lease_token: string | null;
  lease_until: number | null;
  bytes_shipped: Generated<number>;
  objects_shipped: Generated<number>;
  last_error: string | null;
  last_error_at: number | null;
  last_check_at: number | null;
  last_check: string | null;
  last_drill_at: number | null;
  last_drill: string | null;
}

/** Migration 022: every object written to the off-site target. */
export interface OffsiteObjectsTable {
  name: string;
  kind: 'blob' | 'segment';
  generation: string | null;
  blob_key: string | null;
  cipher_sha256: string;
  size: number;
  shipped_at: number;
}

/** Migration 022: a blob a generation's segments name. */
export interface OffsiteGenerationBlobsTable {
  generation: string;
  blob_key: string;
}

/** Migration 022: a blob retention let go of before the off-site target held it. */
export interface OffsiteDeferredDeletesTable {
  blob_key: string;
  deferred_at: number;
}

export interface Database {
  tenants: TenantsTable;
  tenant_features: TenantFeaturesTable;
  admins: AdminsTable;
  admin_permissions: AdminPermissionsTable;
  admin_features: AdminFeaturesTable;
  admin_wallets: AdminWalletsTable;
  invitations: InvitationsTable;
  approval_policies: ApprovalPoliciesTable;
  proposals: ProposalsTable;
  proposal_approvals: ProposalApprovalsTable;
  wallet_challenges: WalletChallengesTable;
  channels: ChannelsTable;
  channel_admins: ChannelAdminsTable;
  auth_nonces: AuthNoncesTable;
  revoked_messages: RevokedMessagesTable;
  service_secrets: ServiceSecretsTable;
  demo_seeding: DemoSeedingTable;
  files: FilesTable;
  channel_clocks: ChannelClocksTable;
  clock_ticks: ClockTicksTable;
  folder_counts: FolderCountsTable;
  backups: BackupsTable;
  file_versions: FileVersionsTable;
  audit_events: AuditEventsTable;
  audit_heads: AuditHeadsTable;
  pending_writes: PendingWritesTable;
  public_copies_due: PublicCopiesDueTable;
  legacy_spellings: LegacySpellingsTable;
  offsite_changes: OffsiteChangesTable;
  offsite_state: OffsiteStateTable;
  offsite_objects: OffsiteObjectsTable;
  offsite_deferred_deletes: OffsiteDeferredDeletesTable;
  offsite_generation_blobs: OffsiteGenerationBlobsTable;
  webhooks: WebhooksTable;
  tenant_offsite_targets: TenantOffsiteTargetsTable;
  tenant_offsite_state: TenantOffsiteStateTable;
  tenant_offsite_rows: TenantOffsiteRowsTable;
  tenant_offsite_blobs: TenantOffsiteBlobsTable;
  event_streams: EventStreamsTable;
  event_cursors: EventCursorsTable;
  event_deliveries: EventDeliveriesTable;
  read_holds: ReadHoldsTable;
  resumable_uploads: ResumableUploadsTable;
}

/** A tus upload's state (migration 027, src/model/uploads.ts); bigints read back as strings on PostgreSQL. */
export interface ResumableUploadsTable {
  id: string;
  channel_id: string;
  tenant_id: string;
  admin_id: string;
  folder: string;
  filename: string;
  content_type: string;
  metadata: string;
  /** JSON: the If-Match / If-None-Match of the creation (src/files/preconditions.ts). */
  precondition: string;
  length: number | string | null;
  offset: number | string;
  created_at: number | string;
  expires_at: number | string;
  multipart_id: string | null;
  /** JSON: [{ size, etag }] in part order. */
  parts: string;
  tail_key: string | null;
  tail_size: number | string;
  state: string;
  etag: string | null;
  /** JSON: the problem that ended it ({ code, message }), once failed. */
  failure: string | null;
}

/** A channel's blobs held against retention while an archive reads them (migration 025). */
export interface ReadHoldsTable {
  id: string;
  channel_id: string;
  admin_id: string;
  until: number;
}

/** Events out (migration 023, docs/events.md). bigint columns read back as strings on PostgreSQL. */
export interface WebhooksTable {
  id: string;
  tenant_id: string;
  created_by: string;
  url_sealed: string;
  url_shown: string;
  types: string;
  channels: string;
  folders: string;
  results: string;
  paused: number;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: number | null;
  secret_rotated_at: number | null;
  revision: number;
  created_at: number;
  updated_at: number;
}

export interface EventStreamsTable {
  destination: string;
  tenant_id: string;
  start_seq: number;
  scanned_seq: number;
  low_water: number;
  updated_at: number;
}

export interface EventCursorsTable {
  destination: string;
  tenant_id: string;
  channel_key: string;
  last_seq: number;
  seen_seq: number;
  attempts: number;
  first_failure_at: number | null;
  next_attempt_at: number | null;
  lease_token: string | null;
  lease_until: number | null;
}

export interface EventDeliveriesTable {
  id: string;
  destination: string;
  tenant_id: string;
  channel_key: string;
  seq: number;
  event_id: string;
  type: string;
  status: string;
  attempts: number;
  http_status: number | null;
  error: string | null;
  latency_ms: number | null;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
}

export type Engine = 'sqlite' | 'postgres';

/** Migration 024 (src/offsite/tenant): a tenant's own off-site target, at most one per tenant. */
export interface TenantOffsiteTargetsTable {
  tenant_id: string;
  url: string;
  endpoint: string | null;
  region: string;
  force_path_style: number;
  access_key_id: string;
  secret_sealed: string;
  recipients: string;
  set_by: string;
  revision: number;
  created_at: number;
  updated_at: number;
}

export interface TenantOffsiteStateTable {
  tenant_id: string;
  /** The target's revision this state belongs to: a changed target starts afresh. */
  revision: number;
  target_id: string | null;
  generation: string | null;
  generation_at: number | null;
  schema_version: string | null;
  segment: number | null;
  segment_hash: string | null;
  /** The tenant's audit chain seq the last shipped segment reached. */
  shipped_seq: number;
  shipped_at: number | null;
  scanned_at: number | null;
  bytes_shipped: number;
  objects_shipped: number;
  last_error: string | null;
  last_error_at: number | null;
  failures: number;
  next_attempt_at: number | null;
  last_check: string | null;
  last_check_at: number | null;
  lease_token: string | null;
  lease_until: number | null;
}

export interface TenantOffsiteRowsTable {
  tenant_id: string;
  tbl: string;
  row_key: string;
  row_hash: string;
}

export interface TenantOffsiteBlobsTable {
  tenant_id: string;
  blob_key: string;
}
