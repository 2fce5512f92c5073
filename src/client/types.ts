// The answers' types, written out: the client is a package of its own (@wallet-admin/client), and
// its declarations may name nothing of the service. test/client/client-types.unit.test.ts holds each
// equal to the type of the TypeBox schema its route answers with, so that neither drifts.

/** The signed-in admin (GET /api/auth/test). */
export interface Principal {
  id: string;
  type: 'ADMIN';
  displayName: string;
  /** t_… */
  tenantId: string;
  /** The owning admin's id, or the literal N/A. */
  ownerAdminId: string;
  /** ACTIVE (a suspended admin is refused with 403). */
  status: string;
  /** chn_… */
  channelIds: string[];
  effectivePermissions: string[];
  effectiveFeatures: string[];
}

export interface AuthTestResponse {
  principal: Principal;
  authenticated: boolean;
  /** Each received value cut to its first 20 characters, followed by "...". */
  headers: { 'X-WAL': string; 'X-SIG': string; 'X-MES': string };
  /** Full values as received; X-Wallet-Address is null when not sent. */
  allHeaders: { 'X-WAL': string; 'X-SIG': string; 'X-MES': string; 'X-Wallet-Address': string | null };
  /** EIP-55 checksum form. */
  walletAddress: string;
}

export interface NonceResponse {
  nonce: string;
  /** RFC 3339. */
  expiresAt: string;
}

export interface FileInfo {
  folder: string;
  filename: string;
  size: number;
  sha256: string;
  contentType: string;
  /** RFC 3339. */
  updatedAt: string;
}

export interface FileVersion {
  id: string;
  /** backup, replaced (kept by an upload or restore) or deleted. */
  kind: string;
  /** The backup it belongs to (yyyyMMdd_HHmmss), else null. */
  timestamp: string | null;
  size: number;
  sha256: string;
  /** RFC 3339. */
  time: string;
}

/** What made a backup: an admin's request, BACKUP_INTERVAL, the CLI, a folder or channel restore's safety backup, the demo data. */
export type BackupOrigin = 'api' | 'schedule' | 'cli' | 'restore' | 'demo';

export interface Backup {
  /** yyyyMMdd_HHmmss (UTC). */
  timestamp: string;
  files: number;
  bytes: number;
  /** The admin (adm_…) who made it; null for the schedule and the CLI. */
  createdBy: string | null;
  /** That admin's display name now; null when there is none. */
  createdByName: string | null;
  /** What made it; null for a backup made before the service recorded this. */
  origin: BackupOrigin | null;
  /** RFC 3339. */
  createdAt: string;
  /** Its lock and legal hold; null when it has neither. */
  lock: BackupLock | null;
}

/** A backup's lock (docs/backup-locks.md). A lock whose until has passed holds no more. */
export interface BackupLock {
  /** governance: an owner may shorten or lift it; compliance: nobody may before until, only extend it. Null: no retention lock. */
  mode: 'governance' | 'compliance' | null;
  /** RFC 3339; null exactly when mode is. */
  until: string | null;
  /** Held until an owner releases it, whatever the date. */
  legalHold: boolean;
  /** The admin who last changed the lock; null for the operator's CLI. */
  lockedBy: string | null;
  /** When the lock was last changed, RFC 3339. */
  lockedAt: string;
}

/**
 * A change of a backup's lock: mode and until together (set, extend, or for an owner shorten a
 * governance lock), legalHold, or both at once (both applied, or neither).
 */
export interface BackupLockChange {
  mode?: 'governance' | 'compliance';
  /** RFC 3339 (a Date is written as one); in the future, at most BACKUP_LOCK_MAX_DAYS ahead. */
  until?: string;
  legalHold?: boolean;
}

export interface AuditEvent {
  id: string;
  /** RFC 3339. */
  time: string;
  adminId: string | null;
  /** That admin's display name now; null when there is none. */
  adminName: string | null;
  action: string;
  result: string;
  code: string | null;
  folder: string | null;
  filename: string | null;
  backupTimestamp: string | null;
  versionId: string | null;
  /** A restore to an instant: the instant asked for (RFC 3339, as asked). */
  at: string | null;
  sha256: string | null;
  /** The folder or channel restore this event belongs to (op_…); list them with `operationId`. */
  operationId: string | null;
  /** A folder or channel restore's own event: what it was asked and what it did; null on every other event. */
  operation: {
    scope: 'folder' | 'channel';
    /** The instant restored, as asked; null when a backup was named. */
    at: string | null;
    delete: boolean;
    dryRun: boolean;
    /** The backup taken before the first change. */
    safetyBackup: string | null;
    /** Files done per action, left alone (unchanged), and whose restore or delete failed. */
    counts: { replaced: number; created: number; deleted: number; unchanged: number; failed: number };
  } | null;
  /** The signed intents that made a held operation run, and who gave them; null on every other event. What each signed is in the export. */
  intents: AuditIntentsSummary | null;
  /** Who acted when no admin did: the operator's label on an event of the operator's CLI; null for an admin and for the service itself. */
  operator: string | null;
  /** The proposal whose run made this event (every step of a held operation); null otherwise. */
  proposalId: string | null;
  /** A change of a record kept beside the files (a backup's lock; what a retention run removed), before and after; null otherwise. */
  change: { before: Record<string, unknown> | null; after: Record<string, unknown> | null } | null;
}

export interface ChannelInfo {
  /** chn_…: usable as channelRef. */
  id: string;
  /** Unique in the tenant; also usable as channelRef. */
  name: string;
  /** Read-only: uploads, deletes and restores are refused (409 CHANNEL_ARCHIVED). */
  archived: boolean;
  /** RFC 3339. */
  createdAt: string;
}

/** A folder that holds at least one live file. */
export interface FolderInfo {
  name: string;
  /** Live files in the folder (deleted files, kept as versions, do not count). */
  fileCount: number;
}

/** A deleted file that can still be restored: `restore(…, { versionId })` brings it back. */
export interface DeletedFile {
  filename: string;
  /** RFC 3339. */
  deletedAt: string;
  /** The admin (adm_…) who deleted it; null for the CLI. */
  deletedBy: string | null;
  /** That admin's display name now; null when there is none. */
  deletedByName: string | null;
  versionId: string;
  size: number;
  sha256: string;
}

/** A file added, changed or deleted between two backups (or a backup and now). */
export interface FileChange {
  folder: string;
  filename: string;
  change: 'added' | 'changed' | 'deleted';
  /** Of the newer state; of the older one for deleted. */
  size: number;
  sha256: string;
}

/** `?limit=` (1–1000, 50 by default) and `?cursor=` (a page's `next`). */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** `from` (a backup) or `fromAt` (an instant), optional `to` or `toAt` (default: now) and `folder`, and the page. */
export interface ChangesQuery extends PageRequest {
  /** The older backup, yyyyMMdd_HHmmss (or fromAt: exactly one of them). */
  from?: string;
  /** Instead of from: the channel at this instant. */
  fromAt?: Date | string;
  /** The newer backup; default: the live files now. */
  to?: string;
  /** Instead of to: the channel at this instant. */
  toAt?: Date | string;
  /** Only this folder. */
  folder?: string;
}

/** A page of the audit log, and its filters: action, adminId, folder, filename, result, operationId (AND). */
export interface AuditQuery extends PageRequest {
  action?: 'upload' | 'delete' | 'backup' | 'restore' | 'backup.delete' | 'backup.lock' | 'retention' | 'archive';
  adminId?: string;
  folder?: string;
  filename?: string;
  /** ok, refused (4xx) or failed (5xx). */
  result?: 'ok' | 'refused' | 'failed';
  operationId?: string;
}

/**
 * What a folder or channel restore changed (or, for a dry run, would change), its safety backup,
 * and `etag`, the plan's ETag (the answer's ETag header): pass it as `ifMatch` to restore exactly
 * the plan a dry run showed.
 */
export interface ScopeRestoreResult {
  dryRun: boolean;
  /** The backup of the whole channel taken before the first change; null for a dry run or when nothing changed. */
  safetyBackup: string | null;
  /** By folder, then filename. */
  changes: { folder: string; filename: string; action: 'replace' | 'create' | 'delete' }[];
  /** Files of the backup that the scope already holds with the same bytes. */
  unchanged: number;
  etag: string;
  /** Present only when the restore goes past a quota (docs/quotas.md): it runs all the same. */
  quota?: {
    scope: 'channel' | 'tenant';
    maxBytes: number | null;
    maxFiles: number | null;
    used: { files: number; bytes: number };
    after: { files: number; bytes: number };
  };
}

/** Every list answers one page: the items and the cursor of the next page, null on the last. */
export interface Page<T> {
  items: T[];
  next: string | null;
}

/**
 * An admin of the tenant (docs/administration.md): the principal's fields, its wallets and when it
 * was made. `ownerAdminId` is the literal N/A for an owner.
 */
export interface Admin {
  /** adm_… */
  id: string;
  type: 'ADMIN';
  displayName: string;
  tenantId: string;
  ownerAdminId: string;
  /** A removed admin's record stays, walletless, for the audit log. */
  status: 'ACTIVE' | 'SUSPENDED' | 'REMOVED';
  channelIds: string[];
  effectivePermissions: string[];
  effectiveFeatures: string[];
  /** EIP-55 checksum form, oldest first; none once removed. */
  wallets: string[];
  /** RFC 3339. */
  createdAt: string;
}

/** What an admin may be granted (an owner holds every one). */
export type Permission =
  | 'files:read'
  | 'files:write'
  | 'files:restore'
  | 'backups:create'
  | 'audit:read'
  | 'admins:read'
  | 'admins:manage'
  | 'channels:manage'
  | 'backups:delete'
  | 'backups:lock'
  | 'webhooks:manage'
  | 'offsite:manage';

/** A record with the ETag of its answer: pass it as `ifMatch` to change it only if nobody has since. */
export type Tagged<T> = T & { etag: string };

/** The admins' filters (AND): status, a permission held, a channel linked (id or name); and the page. */
export interface AdminQuery extends PageRequest {
  status?: 'ACTIVE' | 'SUSPENDED' | 'REMOVED';
  permission?: Permission;
  channel?: string;
}

/** A new admin: a sub-admin of the caller, or with `owner: true` (owners only) an owner. */
export interface NewAdmin {
  displayName: string;
  wallet: string;
  /** The granted set; the caller must hold each. */
  permissions: Permission[];
  /** Channel ids or names; the caller must be linked to each. */
  channels?: string[];
  owner?: boolean;
}

/** What an update changes; `permissions` replaces the granted set. */
export interface AdminChanges {
  displayName?: string;
  permissions?: Permission[];
  status?: 'ACTIVE' | 'SUSPENDED';
}

export interface AdminWallet {
  /** EIP-55 checksum form. */
  address: string;
  /** RFC 3339. */
  addedAt: string;
}

/**
 * The EIP-712 typed data the new wallet signs (eth_signTypedData_v4) to prove it is the caller's to
 * add. Typed data, not a message: no sign-in ever accepts it, so whoever relays it cannot sign in with it.
 */
export interface WalletProofTypedData {
  domain: { name: 'wallet-admin wallet proof'; version: '1'; chainId: number };
  types: { EIP712Domain: { name: string; type: string }[]; AddWallet: { name: string; type: string }[] };
  primaryType: 'AddWallet';
  message: {
    /** What signing it does, in words. */
    statement: string;
    /** The service's public URL. */
    service: string;
    tenant: string;
    /** The admin the wallet joins. */
    admin: string;
    /** The new wallet, EIP-55. */
    wallet: string;
    nonce: string;
    /** Unix seconds. */
    deadline: number;
  };
}

/** A challenge for a new wallet: its typed data, to sign exactly as given. */
export interface WalletChallenge {
  typedData: WalletProofTypedData;
  /** RFC 3339. */
  expiresAt: string;
}

/** The new wallet's eth_signTypedData_v4 signature of its challenge's typed data, sent with that typed data. */
export interface WalletProof {
  typedData: WalletProofTypedData;
  signature: string;
}

/** A list answered whole, with no pages. */
export interface Items<T> {
  items: T[];
}

/** An invitation as listed: never its token, which only its creation answers. */
export interface Invitation {
  /** inv_… */
  id: string;
  /** adm_… */
  inviterAdminId: string;
  /** The new admin's name, unless the one accepting gives another. */
  displayName: string | null;
  /** The only wallet that may accept it, or null for any wallet that is no admin yet. */
  wallet: string | null;
  permissions: string[];
  channelIds: string[];
  state: 'pending' | 'accepted' | 'revoked' | 'expired';
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339. */
  expiresAt: string;
  /** The admin it made, once accepted. */
  acceptedAdminId: string | null;
}

/** A new invitation: its token (shown once; the service keeps only its SHA-256) and the console's URL carrying it in the fragment. */
/** What an invitation grants and who invites: what its link's holder reads before accepting (previewInvitation). */
export interface InvitationPreview {
  id: string;
  tenant: { id: string; name: string };
  inviter: { id: string; displayName: string };
  /** The name the inviter suggested; the invitee may give another. */
  displayName: string | null;
  /** The one wallet that may accept it; null: any. */
  wallet: string | null;
  permissions: string[];
  channels: { id: string; name: string }[];
  /** An invitation makes a sub-admin below its inviter, never an owner. */
  owner: false;
  /** RFC 3339. */
  expiresAt: string;
}

export interface IssuedInvitation extends Invitation {
  token: string;
  url: string;
}

export interface NewInvitation {
  permissions: Permission[];
  /** Channel ids or names. */
  channels?: string[];
  /** Seconds until it expires (at least 60), at most the service's INVITATION_MAX_SECONDS (7 days by default). */
  expiresIn: number;
  /** Only this wallet may accept it. */
  wallet?: string;
  /** The new admin's name, unless the one accepting gives another. */
  displayName?: string;
}

export interface ChannelChanges {
  name?: string;
  archived?: boolean;
}

/** An event of the tenant's audit log: a channel's, or an administration event with whom it acted on and the record before and after. */
export interface TenantAuditEvent extends AuditEvent {
  /** The channel it concerns; null for an admin's or an invitation's event. */
  channelId: string | null;
  /** The admin acted upon. */
  targetAdminId: string | null;
}

/** A held operation's intents in the tenant's log: the proposal, its quorum and who approved it. */
export interface AuditIntentsSummary {
  /** prp_… */
  proposalId: string;
  operation: string;
  required: number;
  permission: string;
  approvals: { adminId: string; wallet: string; kind: 'eoa' | 'contract' }[];
}

/** The audit chain's last entry (docs/audit-chain.md): publish it elsewhere, and an export must reach it unchanged. */
export interface AuditHead {
  tenantId: string;
  /** 0 while the log is empty. */
  seq: number;
  /** 64 lowercase hex digits; 64 zeros while the log is empty. */
  hash: string;
  /** RFC 3339; null while the log is empty. */
  at: string | null;
}

/** The administration events' actions; a channel's events have those of AuditQuery. */
export type AdministrationAction =
  | 'admin.create'
  | 'admin.update'
  | 'admin.remove'
  | 'admin.sign-out'
  | 'wallet.add'
  | 'wallet.remove'
  | 'invitation.create'
  | 'invitation.revoke'
  | 'invitation.accept'
  | 'channel.create'
  | 'channel.update'
  | 'channel.link'
  | 'channel.unlink'
  | 'policy.change'
  | 'proposal.create'
  | 'proposal.approve'
  | 'proposal.withdraw'
  | 'proposal.close'
  | 'proposal.execute'
  | 'tenant.update'
  | 'tenant.create'
  | 'offsite.rebuild'
  | 'offsite.check'
  | 'offsite.drill'
  | 'webhook.create'
  | 'webhook.change'
  | 'webhook.delete'
  | 'offsite.change';

/** The tenant's audit log's filters (AND): a channel log's, and the admin acted upon and the channel; and the page. */
export interface TenantAuditQuery extends Omit<AuditQuery, 'action'> {
  /** audit.chain-start: the first entry of a chain started over a log written before chaining (docs/audit-chain.md). */
  action?: NonNullable<AuditQuery['action']> | AdministrationAction | 'audit.chain-start';
  /** The admin acted upon. */
  targetAdminId?: string;
  /** chn_… */
  channelId?: string;
}

/** The operations a policy may hold (docs/approvals.md). */
export type HeldOperation =
  | 'folder.restore'
  | 'channel.restore'
  | 'backup.delete'
  | 'backup.lock'
  | 'admin.create'
  | 'admin.change'
  | 'admin.remove'
  | 'invitation.create'
  | 'wallet.add'
  | 'policy.change'
  | 'webhook.create'
  | 'webhook.change'
  | 'webhook.delete'
  | 'offsite.change';

/** "`operation` needs intents from `approvals` distinct admins holding `permission`." */
export interface PolicyRule {
  operation: HeldOperation;
  approvals: number;
  permission: string;
}

/** A tenant's policy (channelId null) or a channel's (with the tenant's rules, which apply too). */
export interface Policy {
  tenantId: string;
  channelId: string | null;
  rules: PolicyRule[];
  tenantRules?: PolicyRule[];
  revision: number;
  updatedAt?: string;
  updatedBy?: string;
}

export type ProposalStatus = 'pending' | 'running' | 'executed' | 'failed' | 'invalidated' | 'withdrawn' | 'expired';

/** EIP-712 typed data, as eth_signTypedData_v4 takes it: sign it exactly as given. */
/** EIP-712 typed data, as eth_signTypedData_v4 takes it: a proposal's intent, or a wallet proof. */
export type TypedData = IntentTypedData | WalletProofTypedData;

export interface IntentTypedData {
  domain: { name: string; version: string; chainId: number };
  types: Record<string, { name: string; type: string }[]>;
  primaryType: 'Intent';
  message: Record<string, string | number | boolean>;
}

/** An operation a policy holds until enough admins sign its intent. */
export interface Proposal {
  id: string;
  tenantId: string;
  channelId: string | null;
  operation: HeldOperation;
  status: ProposalStatus;
  proposedBy: string;
  createdAt: string;
  expiresAt: string;
  required: number;
  permission: string;
  plan: Record<string, unknown>;
  planEtag: string;
  summary: string;
  typedData: IntentTypedData;
  approvals: { adminId: string; wallet: string; signature: string; kind: 'eoa' | 'contract'; approvedAt: string; counts: boolean }[];
  approvalsCounted: number;
  eligibleAdminIds: string[];
  /** The display names of the admins it names (proposer, approvers, those who may approve), by admin id. */
  adminNames: Record<string, string>;
  reason: string | null;
  result: Record<string, unknown> | null;
  finishedAt?: string;
}

export interface ProposalQuery extends PageRequest {
  status?: ProposalStatus;
}

/** The audit results a webhook may be limited to: ok, refused (4xx) or failed (5xx). */
export type WebhookResult = 'ok' | 'refused' | 'failed';

/** Where a delivery stands: retrying after a failed attempt, dead once the retries are spent. */
export type WebhookDeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'dead';

/** An endpoint the tenant's events are posted to, signed as Standard Webhooks (verifyWebhook checks them). */
export interface Webhook {
  id: string;
  /** Its user info and query values shown as ***: they may hold credentials. */
  url: string;
  /** The filters of the events it receives. */
  types: string[];
  channels: string[];
  folders: string[];
  results: WebhookResult[];
  /** As an admin set it (updateWebhook); `state` is where the deliveries stand. */
  paused: boolean;
  /** stoppedReason says why when stopped. */
  state: 'active' | 'paused' | 'stopped';
  stoppedReason: string | null;
  /** adm_… */
  createdBy: string;
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339. */
  updatedAt: string;
  /** RFC 3339; null while its first secret is the one in use. */
  secretRotated: string | null;
  /** Event sequence numbers: how far its deliveries have come, and the newest event. */
  lowWaterSeq: number;
  headSeq: number;
  lastDelivery: { at: string; status: WebhookDeliveryStatus; httpStatus: number | null } | null;
}

/** A new webhook: where it posts, the filters of what it receives, and from which event (`from`) it starts. */
export interface NewWebhook {
  url: string;
  types?: string[];
  channels?: string[];
  folders?: string[];
  results?: WebhookResult[];
  /** head: the events from now on; start: from the first event the service keeps. */
  from?: 'head' | 'start';
}

/** A new webhook, with its signing secret: shown this once, keep it where the receiver reads it. */
export interface CreatedWebhook extends Webhook {
  secret: string;
}

/** What an update changes; a filter given replaces the one in place. */
export interface WebhookChanges {
  url?: string;
  types?: string[];
  channels?: string[];
  folders?: string[];
  results?: WebhookResult[];
  paused?: boolean;
}

/** One test delivery's outcome: the receiver's status, how long it took, and the start of its answer. */
export interface WebhookTestResult {
  delivered: boolean;
  /** The receiver's HTTP status; null when no answer came. */
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** The start of the receiver's answer. */
  excerpt: string | null;
}

/** The new secret (shown this once); the old one still signs until previousSecretValidUntil. */
export interface RotatedWebhookSecret {
  id: string;
  secret: string;
  /** RFC 3339. */
  previousSecretValidUntil: string;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  type: string;
  seq: number;
  channelId: string | null;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** The last attempt's HTTP status; null when none came. */
  httpStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339. */
  updatedAt: string;
  /** RFC 3339; null when no attempt is due. */
  nextAttempt: string | null;
}

/** A webhook's deliveries, optionally only those of one status; and the page. */
export interface WebhookDeliveryQuery extends PageRequest {
  status?: WebhookDeliveryStatus;
}

/** The body of a delivery, once verifyWebhook has checked it. */
export interface WebhookEvent {
  id: string;
  type: string;
  tenantId: string;
  channelId?: string;
  /** RFC 3339. */
  time: string;
  data: Record<string, unknown>;
}

/**
 * What setOffsite takes: the tenant's own bucket its off-site copy goes to (docs/offsite.md, "A
 * tenant's own copy"), the key the service writes it with, and the age recipients it is encrypted to.
 */
export interface TenantOffsiteSettings {
  /** s3://bucket/prefix */
  url: string;
  /** An S3-compatible store's URL (https://host[:port]); unset: AWS S3 in `region`. */
  endpoint?: string;
  /** The bucket's region (default us-east-1). */
  region?: string;
  /** Path-style requests (https://host/bucket/key), as MinIO and most S3-compatible stores want. */
  forcePathStyle?: boolean;
  /** The bucket key's id: it needs to write, read and list, and should not delete. */
  accessKeyId: string;
  /** Its secret: sealed by the service, and never in any answer again. */
  secretAccessKey: string;
  /** age recipients (age1…), 1 to 20: only their identities read the copy. */
  recipients: string[];
}

/** How far the tenant's copy has come, its last error and its last test. */
export interface TenantOffsiteStatus {
  /** pending: nothing shipped yet; failing: the last round failed (lastError). */
  state: 'pending' | 'ok' | 'failing';
  /** Seconds since the oldest change the copy does not hold yet (0: none). */
  lagSeconds: number;
  /** Changes (audit entries) the copy does not hold yet. */
  changesPending: number;
  targetId: string | null;
  generation: string | null;
  segment: number | null;
  /** When the last segment reached the target (RFC 3339); null: none yet. */
  lastShipped: string | null;
  bytesShipped: number;
  objectsShipped: number;
  /** The last round's failure (`at`: RFC 3339), until a round succeeds. */
  lastError: { message: string; at: string } | null;
  /** The last test of the target (testOffsite): `result` is "ok: …" or "failed: …"; `at`: RFC 3339. */
  lastCheck: { ok: boolean; result: string; at: string } | null;
  /** The copy's head, to publish beside the identity: `wallet-admin offsite verify --head-file` checks it. */
  head: { target: string; generation: string; segment: number; hash: string } | null;
}

/** The tenant's own off-site target as the service shows it: never its secret. */
export interface TenantOffsite {
  tenantId: string;
  url: string;
  /** null: AWS S3, by region. */
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  recipients: string[];
  /** The admin who set it last (adm_…); `operator:LABEL` when the operator's CLI did (`wallet-admin offsite target set`). */
  setBy: string;
  /** Counts every change of the target. */
  revision: number;
  /** RFC 3339. */
  createdAt: string;
  /** RFC 3339. */
  updatedAt: string;
  status: TenantOffsiteStatus;
}

/** A test of the tenant's target: reached with its key, its copy listed, what was pending shipped. */
export interface OffsiteTestResult {
  ok: boolean;
  /** "ok: …" or "failed: …", saying what was reached or what failed. */
  result: string;
  /** RFC 3339. */
  checkedAt: string;
}

/** A quota (docs/quotas.md); null in either: no limit on that. */
export interface QuotaLimits {
  maxBytes: number | null;
  maxFiles: number | null;
}

/** Usage against a quota: every record once, live files and kept versions; what uploads may still add. */
export interface UsageReport {
  usage: { files: number; bytes: number; live: { files: number; bytes: number }; kept: { files: number; bytes: number } };
  quota: QuotaLimits;
  left: { bytes: number | null; files: number | null };
}

export interface ChannelUsage extends UsageReport {
  channelId: string;
  tenantQuota: QuotaLimits;
}

export interface TenantUsage extends UsageReport {
  tenantId: string;
  channels: (UsageReport & { channelId: string })[];
}

export interface ChannelQuota extends QuotaLimits {
  channelId: string;
  /** The tenant's, which the channel's stays within. */
  tenant: QuotaLimits;
}
