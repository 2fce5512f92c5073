/**
 * A tenant's own off-site copy (docs/offsite.md, "A tenant's own copy"): the target a tenant sets,
 * and how far shipping there has come. The copy is in the operator copy's format, of that tenant's
 * rows and bytes only, encrypted to the tenant's own age recipients.
 */

/** The target as stored: the secret key sealed under SECRETS_KEY, never shown. */
export interface TenantOffsiteTarget {
  tenantId: string;
  /** s3://bucket/prefix */
  url: string;
  /** An S3-compatible store's URL; null: AWS S3, by region. */
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretSealed: string;
  /** age X25519 recipients (age1…). */
  recipients: string[];
  /** The admin who set it last. */
  setBy: string;
  /** Counts every change of the target: a state of another revision is started afresh. */
  revision: number;
  createdAt: number;
  updatedAt: number;
}

export interface TenantOffsiteState {
  tenantId: string;
  revision: number;
  targetId: string | null;
  generation: string | null;
  generationAt: number | null;
  /** The schema the generation's rows were written under: a migration since begins a new one. */
  schemaVersion: string | null;
  segment: number | null;
  segmentHash: string | null;
  /** The tenant's audit seq the last shipped segment reached. */
  shippedSeq: number;
  shippedAt: number | null;
  /** When the tenant's rows were last compared with the copy's. */
  scannedAt: number | null;
  bytesShipped: number;
  objectsShipped: number;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Rounds failed in a row: the next waits the longer (nextAttemptAt). */
  failures: number;
  nextAttemptAt: number | null;
  /** "ok: …" or "failed: …", with its time. */
  lastCheck: string | null;
  lastCheckAt: number | null;
}

/** One table's rows of a tenant, as a round reads them. */
export interface TenantTableRows {
  name: string;
  key: readonly string[];
  rows: Record<string, unknown>[];
}

/** A tenant's rows read in one read transaction, with the tenant's audit head at that instant. */
export interface TenantSnapshot {
  schemaVersion: string;
  headSeq: number;
  /** Every table's rows, but audit_events: only the entries after `afterSeq` (the chain only grows). */
  tables: TenantTableRows[];
}

/** What a shipped segment changes in the record of what the copy holds. */
export interface TenantShipment {
  tenantId: string;
  token: string;
  revision: number;
  generation: string;
  segment: number;
  segmentHash: string;
  schemaVersion: string;
  /** A snapshot replaces every row hash; a changes segment upserts and deletes. */
  kind: 'snapshot' | 'changes';
  rows: { table: string; key: string; hash: string | null }[];
  blobKeys: string[];
  headSeq: number;
  at: number;
  bytes: number;
  objects: number;
}

export interface TenantOffsiteRecords {
  getTarget(tenantId: string): Promise<TenantOffsiteTarget | undefined>;
  /** Every tenant's target (the shipper's round). */
  targets(): Promise<TenantOffsiteTarget[]>;
  /** Sets (inserts or replaces) the tenant's target; a new revision. */
  putTarget(target: TenantOffsiteTarget): Promise<void>;
  /** Removes the target and what the service kept of shipping there; false when none was set. */
  removeTarget(tenantId: string): Promise<boolean>;

  state(tenantId: string): Promise<TenantOffsiteState | undefined>;
  /**
   * Takes (or renews) the lease of shipping this tenant; a state of another revision is started
   * afresh (row hashes and blobs forgotten). False: another instance holds it.
   */
  holdLease(tenantId: string, revision: number, token: string, until: number, now: number): Promise<boolean>;
  releaseLease(tenantId: string, token: string): Promise<void>;
  setTargetId(tenantId: string, targetId: string): Promise<void>;
  /** The tenant's rows now, in one read transaction (audit entries after `afterSeq` only). */
  readTenant(tenantId: string, afterSeq: number): Promise<TenantSnapshot>;
  /** The hash of each row as last shipped, by `${table}\u0000${key}`. */
  shippedRows(tenantId: string): Promise<Map<string, string>>;
  shippedBlob(tenantId: string, blobKey: string): Promise<boolean>;
  /** Records a shipped segment, if the lease is still this token's and the segment follows the state's. */
  recordShipment(shipment: TenantShipment): Promise<boolean>;
  /** Nothing changed since the last segment: notes the scan and the head it reached. */
  noteScanned(tenantId: string, headSeq: number, at: number): Promise<void>;
  noteError(tenantId: string, message: string, at: number, nextAttemptAt: number): Promise<void>;
  /** Records a test of the target of this revision (a state for it is begun if there is none yet). */
  noteCheck(tenantId: string, revision: number, result: string, at: number): Promise<void>;
  /** How many tenants have a target of their own, and how many of those failed their last round. */
  census(): Promise<{ targets: number; failing: number }>;
  /** The tenant's audit head seq, and the time of its oldest entry after `afterSeq` (the lag), if any. */
  backlog(tenantId: string, afterSeq: number): Promise<{ headSeq: number; oldestAt: number | undefined; entries: number }>;
}
