/** Off-site copies (docs/offsite.md): what the shipper, the rebuild and `offsite status` read and write in the metadata store. */

export type ChangeOp = 'insert' | 'update' | 'delete';

/** One captured change of a shipped table; rows as plain JSON values. */
export interface CapturedChange {
  seq: number;
  table: string;
  op: ChangeOp;
  /** The row's key before an update or delete (on PostgreSQL the whole row before: the key columns are read from it). */
  oldKey: Record<string, unknown> | null;
  /** The row after an insert or update. */
  row: Record<string, unknown> | null;
  /** When the row changed (epoch ms). */
  at: number;
}

export interface OffsiteState {
  /** The target as configured (its description: never a credential). */
  target: string;
  /** A random id made when shipping to this target began: every segment carries it. */
  targetId: string;
  generation: string | null;
  generationAt: number | null;
  schemaVersion: string | null;
  /** The last segment shipped in this generation (0: the snapshot); null while its snapshot is not at the target. */
  segment: number | null;
  segmentHash: string | null;
  segmentAt: number | null;
  /** JSON of { tenantId: { seq, hash } }: the audit chain heads the last segment covers. */
  auditHeads: Record<string, { seq: number; hash: string }>;
  /** The segment being shipped (its changes are marked), and when its header was made. */
  pendingSegment: number | null;
  pendingAt: number | null;
  leaseToken: string | null;
  leaseUntil: number | null;
  bytesShipped: number;
  objectsShipped: number;
  lastError: string | null;
  lastErrorAt: number | null;
  lastCheckAt: number | null;
  lastCheck: string | null;
  lastDrillAt: number | null;
  lastDrill: string | null;
}

/** Every row of every shipped table, read in one transaction. */
export interface Snapshot {
  schemaVersion: string;
  tables: { name: string; rows: Record<string, unknown>[] }[];
}

export interface ShippedObject {
  name: string;
  kind: 'blob' | 'segment';
  generation: string | null;
  blobKey: string | null;
  cipherSha256: string;
  size: number;
}

export interface OffsiteRecords {
  /** Whether the database captures changes (triggers installed). */
  captureInstalled(): Promise<boolean>;
  installCapture(): Promise<{ wasInstalled: boolean }>;
  removeCapture(): Promise<boolean>;
  /** The last migration applied: a segment names the schema its rows have. */
  schemaVersion(): Promise<string>;

  state(): Promise<OffsiteState | undefined>;
  /** The next round starts a new generation (the capture was off for a while: the queue does not hold everything since). */
  requireSnapshot(): Promise<void>;
  /** Begins shipping to a target (a first start, or OFFSITE_URL changed): the changes queued so far are dropped, a snapshot comes next. */
  beginTarget(target: string, targetId: string): Promise<void>;
  /** Takes or renews the shipper's lease; false when another instance holds it. On SQLite the renewal's commit is synced, and with it every commit before it. */
  holdLease(token: string, until: number, now: number): Promise<boolean>;
  releaseLease(token: string): Promise<void>;

  /**
   * One consistent read of every shipped table for a new generation (REPEATABLE READ on PostgreSQL);
   * the captured changes the read already holds are dropped, and the state shows a generation
   * whose snapshot is not yet shipped.
   */
  takeSnapshot(generation: string, at: number): Promise<Snapshot>;
  /** The snapshot (segment 0) is at the target. */
  snapshotShipped(
    generation: string,
    hash: string,
    at: number,
    auditHeads: OffsiteState['auditHeads'],
    object: ShippedObject,
    /** The blobs the segment names: what OFFSITE_KEEP_DAYS must keep while the generation is kept. */
    blobKeys: string[],
  ): Promise<void>;

  /**
   * The changes of the next segment: those already marked for the pending one, else up to `limit`
   * changes that no transaction still running can precede, marked for segment `next`.
   */
  nextChanges(next: number, limit: number, at: number): Promise<CapturedChange[]>;
  /** The segment is at the target: its changes leave the queue, the state moves to it. */
  segmentShipped(
    segment: number,
    hash: string,
    at: number,
    auditHeads: OffsiteState['auditHeads'],
    object: ShippedObject,
    blobKeys: string[],
  ): Promise<void>;

  /** Every generation with a segment at the target: when its snapshot and its last segment were shipped. */
  generations(): Promise<{ generation: string; snapshotAt: number | null; lastAt: number }[]>;
  /**
   * Forgets a generation removed from the target (OFFSITE_KEEP_DAYS): its segments' records, and
   * answers the blob objects that no kept generation, record or queued change names any more.
   */
  releaseGeneration(generation: string): Promise<{ segments: ShippedObject[]; blobs: ShippedObject[] }>;
  forgetObject(name: string): Promise<void>;

  recordObject(object: ShippedObject): Promise<void>;
  /** The object a blob was shipped as, if it was. */
  shippedBlob(blobKey: string): Promise<ShippedObject | undefined>;
  /**
   * Whether retention may remove a blob no record names any more: the target holds it, or nothing
   * still to ship names it (the snapshot is shipped and no queued change does).
   */
  blobReleasable(blobKey: string): Promise<boolean>;
  deferBlobDelete(blobKey: string, at: number): Promise<void>;
  deferredBlobDeletes(limit: number): Promise<string[]>;
  forgetDeferredDelete(blobKey: string): Promise<void>;
  /** Whether a record still names the blob (a blob gone from storage that nothing names needs no copy). */
  blobNamed(blobKey: string): Promise<boolean>;
  objects(kind?: 'blob' | 'segment'): AsyncIterable<ShippedObject>;

  /** The oldest change not yet shipped (its time) and how many are queued. */
  backlog(): Promise<{ oldestAt: number | null; changes: number }>;
  noteError(message: string | null, at: number): Promise<void>;
  noteCheck(result: string, at: number): Promise<void>;
  noteDrill(result: string, at: number): Promise<void>;

  /** `table:key` of every row a change not yet shipped touches (before and after): the drill counts them as newer than the copy. */
  queuedKeys(): Promise<Set<string>>;
  /** Every row of a shipped table as stored, in key order (the drill compares them). */
  rows(table: string): Promise<Record<string, unknown>[]>;
  /** The rebuild: loads a copy into this (empty) database, in one transaction. */
  load(work: (loader: OffsiteLoader) => Promise<void>): Promise<void>;
}

/** Loads a copy into an empty database (the rebuild): rows as shipped, then changes in order. */
export interface OffsiteLoader {
  insertRows(table: string, rows: Record<string, unknown>[]): Promise<void>;
  applyChange(change: CapturedChange): Promise<void>;
  /** Every blob key a loaded record names. */
  namedBlobs(): Promise<string[]>;
  /** Every admin's messages signed before `at` stop authenticating: a rebuilt service starts signed out. */
  signOutAll(at: number): Promise<void>;
  /** Every live file's public copy is queued (a rebuild onto S3 with S3_PUBLIC_BASE_URL). */
  queuePublicCopies(at: number): Promise<void>;
}
