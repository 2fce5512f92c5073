import { createHash, randomUUID } from 'node:crypto';
import { ageEncrypt } from '../age/age-encrypt.ts';
import type { BlobStorage } from '../blobs/blob-storage.ts';
import type { Logger } from '../logging/logger.ts';
import { BLOB_COLUMNS } from '../metadata/offsite/shipped-tables.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { CapturedChange, OffsiteState, ShippedObject } from '../model/offsite.ts';
import { putEncrypted } from './encrypted-object.ts';
import { pruneGenerations } from './keep-days.ts';
import { blobName, newGeneration, segmentName } from './object-names.ts';
import { type BlobEntry, changeRecord, encodeSegment, SEGMENT_FORMAT, type SegmentHeader, sha256Hex } from './segment-format.ts';
import type { OffsiteTarget } from './target/offsite-target.ts';
import { claimTarget } from './target-marker.ts';

/** The tables whose rows name a blob (shipped-tables.ts): the bytes go before the rows. */
const BLOB_TABLES = new Set<string>(Object.keys(BLOB_COLUMNS));
/** Changes per segment: a segment is read, encrypted and sent whole. */
const CHANGES_PER_SEGMENT = 5000;
/** The key the blobs' names are made under (object-names.ts), shared by every instance through the database. */
const NAMING_SECRET = 'offsite-blob-names';

export interface ShipperOptions {
  store: MetadataStore;
  blobs: BlobStorage;
  target: OffsiteTarget;
  recipients: Uint8Array[];
  logger: Logger;
  /** How often it looks for changes: the bound on the delay, with the time a segment takes to send. */
  intervalMs: number;
  leaseMs: number;
  /** A new generation (snapshot) after this long, so that old ones can be let go (OFFSITE_KEEP_DAYS). */
  snapshotEveryMs: number;
  /** OFFSITE_KEEP_DAYS and OFFSITE_LOCK_DAYS: old generations are removed after a round, at most hourly (keep-days.ts). */
  keepDays?: number;
  lockDays?: number;
  now?: () => number;
}

const PRUNE_EVERY_MS = 3_600_000;
/** Blobs sent at once. */
const BLOBS_AT_ONCE = 4;

/**
 * Ships every committed change to the off-site target (docs/offsite.md): a snapshot, then
 * segments of the changes after it, each with the blobs its rows name sent before it. One
 * instance ships at a time (a lease in the database); what it ships is marked in the database
 * before it is sent, so that whoever retries after a crash sends the very same segment.
 */
export class OffsiteShipper {
  private readonly now: () => number;
  private readonly token = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private namingKey: string | undefined;
  private stopped = false;
  private prunedAt = 0;

  constructor(private readonly options: ShipperOptions) {
    this.now = options.now ?? Date.now;
  }

  get target(): OffsiteTarget {
    return this.options.target;
  }

  /** Whether this instance ships now (holds the lease): the scheduled check runs there only. */
  async shipsNow(): Promise<boolean> {
    const state = await this.options.store.offsite.state();
    return state?.leaseToken === this.token && (state.leaseUntil ?? 0) > this.now();
  }

  start(): void {
    this.stopped = false;
    void this.shipOnce();
    this.timer = setInterval(() => void this.shipOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
    await this.options.store.offsite.releaseLease(this.token).catch(() => undefined);
  }

  /** One round now (the timer, and tests): everything shippable is shipped; a round under way is joined. */
  shipOnce(): Promise<void> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Ships until nothing is left (tests and the CLI); throws the round's error. It waits for a round
   * under way and then takes the place of the timer's: two rounds of one instance at once would
   * both hold its lease, and could each begin a generation.
   */
  async drain(): Promise<void> {
    while (this.running) await this.running;
    let failure: unknown;
    const round = this.round(true).catch((err: unknown) => {
      failure = err;
    });
    this.running = round.finally(() => (this.running = undefined));
    await this.running;
    if (failure !== undefined) throw failure;
  }

  private async round(rethrow = false): Promise<void> {
    const { store, logger } = this.options;
    try {
      let state = await store.offsite.state();
      if (state === undefined || state.target !== this.options.target.description) {
        await store.offsite.beginTarget(this.options.target.description, await this.targetId());
        state = await store.offsite.state();
      }
      if (!(await store.offsite.holdLease(this.token, this.now() + this.options.leaseMs, this.now()))) return;
      this.namingKey ??= await store.serviceSecret(NAMING_SECRET, () => randomUUID() + randomUUID());
      state = (await store.offsite.state())!;
      const schema = await store.offsite.schemaVersion();
      const stale = state.generationAt !== null && this.now() - state.generationAt >= this.options.snapshotEveryMs;
      if (state.generation === null || state.segment === null || state.schemaVersion !== schema || stale) {
        await this.snapshot(state);
        state = (await store.offsite.state())!;
      }
      while (!this.stopped) {
        if (!(await store.offsite.holdLease(this.token, this.now() + this.options.leaseMs, this.now()))) return;
        const next = (state.segment ?? 0) + 1;
        const changes = await store.offsite.nextChanges(next, CHANGES_PER_SEGMENT, this.now());
        if (changes.length === 0) break;
        await this.shipChanges(state, next, changes);
        state = (await store.offsite.state())!;
      }
      if ((this.options.keepDays ?? 0) > 0 && this.now() - this.prunedAt >= PRUNE_EVERY_MS) {
        this.prunedAt = this.now();
        await pruneGenerations({
          store,
          target: this.options.target,
          keepDays: this.options.keepDays ?? 0,
          lockDays: this.options.lockDays ?? 0,
          logger,
          now: this.now(),
        });
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      logger.error(
        { err, target: this.options.target.description },
        'off-site shipping failed; changes stay queued and the next round tries again',
      );
      await store.offsite.noteError(message, this.now()).catch(() => undefined);
      if (rethrow) throw err;
    }
  }

  private targetId(): Promise<string> {
    return claimTarget(this.options.target);
  }

  private async snapshot(previous: OffsiteState): Promise<void> {
    const { store } = this.options;
    const at = this.now();
    const generation = newGeneration(at);
    const snapshot = await store.offsite.takeSnapshot(generation, at);
    const blobRows: Record<string, unknown>[] = [];
    const records: { t: string; r: Record<string, unknown> }[] = [];
    const auditHeads: SegmentHeader['auditHeads'] = {};
    for (const table of snapshot.tables) {
      for (const row of table.rows) {
        records.push({ t: table.name, r: row });
        if (BLOB_TABLES.has(table.name)) blobRows.push(row);
        if (table.name === 'audit_heads') auditHeads[String(row.tenant_id)] = { seq: Number(row.seq), hash: String(row.hash) };
      }
    }
    const unique = await this.shipBlobs(blobRows);
    const header: SegmentHeader = {
      format: SEGMENT_FORMAT,
      target: previous.targetId,
      generation,
      segment: 0,
      kind: 'snapshot',
      prev: null,
      previousGeneration:
        previous.generation !== null && previous.segment !== null && previous.segmentHash !== null
          ? { generation: previous.generation, segment: previous.segment, hash: previous.segmentHash }
          : null,
      schema: snapshot.schemaVersion,
      createdAt: at,
      auditHeads,
      blobs: unique.length,
      records: records.length,
    };
    const plaintext = encodeSegment(header, unique, records);
    const { hash, object } = await this.putSegment(generation, 0, plaintext);
    await store.offsite.snapshotShipped(
      generation,
      hash,
      this.now(),
      auditHeads,
      object,
      unique.filter((b) => !b.gone).map((b) => b.key),
    );
  }

  private async shipChanges(state: OffsiteState, segment: number, changes: CapturedChange[]): Promise<void> {
    const { store } = this.options;
    const blobRows: Record<string, unknown>[] = [];
    const auditHeads = { ...state.auditHeads };
    for (const change of changes) {
      if (change.row && BLOB_TABLES.has(change.table) && change.op !== 'delete') blobRows.push(change.row);
      if (change.table === 'audit_heads' && change.row)
        auditHeads[String(change.row.tenant_id)] = { seq: Number(change.row.seq), hash: String(change.row.hash) };
    }
    const unique = await this.shipBlobs(blobRows);
    const header: SegmentHeader = {
      format: SEGMENT_FORMAT,
      target: state.targetId,
      generation: state.generation!,
      segment,
      kind: 'changes',
      prev: state.segmentHash,
      previousGeneration: null,
      schema: state.schemaVersion ?? '',
      // The time the changes were marked: the same on a retry, so the segment's bytes are too.
      createdAt: (await store.offsite.state())?.pendingAt ?? this.now(),
      auditHeads,
      blobs: unique.length,
      records: changes.length,
      changesFrom: changes[0]!.at,
      changesTo: changes[changes.length - 1]!.at,
    };
    const plaintext = encodeSegment(header, unique, changes.map(changeRecord));
    const { hash, object } = await this.putSegment(state.generation!, segment, plaintext);
    await store.offsite.segmentShipped(
      segment,
      hash,
      this.now(),
      auditHeads,
      object,
      unique.filter((b) => !b.gone).map((b) => b.key),
    );
  }

  private async putSegment(generation: string, segment: number, plaintext: Buffer): Promise<{ hash: string; object: ShippedObject }> {
    const name = segmentName(generation, segment);
    const hash = sha256Hex(plaintext);
    const sent = await this.putEncrypted(name, ageEncrypt(this.options.recipients, plaintext));
    return { hash, object: { name, kind: 'segment', generation, blobKey: null, cipherSha256: sent.sha256, size: sent.size } };
  }

  /**
   * The blobs rows name, each once, sent a few at a time: one at a time, a segment of many small
   * files waits on a round trip per file (and on a directory target, two fsyncs).
   */
  private async shipBlobs(rows: Record<string, unknown>[]): Promise<BlobEntry[]> {
    const byKey = new Map<string, Record<string, unknown>>();
    for (const row of rows) byKey.set(String(row.blob_key), row);
    const pending = [...byKey.values()];
    const entries: BlobEntry[] = [];
    const worker = async () => {
      for (let row = pending.shift(); row !== undefined; row = pending.shift()) entries.push(await this.shipBlob(row));
    };
    await Promise.all(Array.from({ length: Math.min(BLOBS_AT_ONCE, pending.length) }, worker));
    // In the rows' order: a segment's bytes must not depend on which send finished first (a retry sends the same segment).
    const order = new Map([...byKey.keys()].map((key, i) => [key, i]));
    return entries.sort((a, b) => order.get(a.key)! - order.get(b.key)!);
  }

  /** Sends a row's blob unless the target holds it already; answers the row's entry for the segment. */
  private async shipBlob(row: Record<string, unknown>): Promise<BlobEntry> {
    const { store, blobs } = this.options;
    const key = String(row.blob_key);
    const entry: BlobEntry = { key, object: blobName(this.namingKey!, key), sha256: String(row.sha256), size: Number(row.size) };
    if (await store.offsite.shippedBlob(key)) return entry;
    const stream = await blobs.get(key);
    if (stream === undefined) {
      // Removed since the row named it, by a change queued after this one: nothing can read it any more.
      if (!(await store.offsite.blobNamed(key))) return { ...entry, gone: true };
      throw new Error(`the blob ${key} that a record names is missing from the primary storage`);
    }
    const plainHash = createHash('sha256');
    const counted = (async function* () {
      for await (const chunk of stream as AsyncIterable<Uint8Array>) {
        plainHash.update(chunk);
        yield chunk;
      }
    })();
    const sent = await this.putEncrypted(entry.object, ageEncrypt(this.options.recipients, counted));
    // Already there (a round that crashed sent it): the storage's stream was never read.
    if (!sent.written) stream.destroy();
    const actual = sent.written ? plainHash.digest('hex') : entry.sha256;
    if (actual !== entry.sha256) {
      this.options.logger.error(
        { blobKey: key, expected: entry.sha256, actual },
        'a blob did not match its recorded sha256 when shipped off-site',
      );
      entry.damaged = actual;
    }
    await store.offsite.recordObject({
      name: entry.object,
      kind: 'blob',
      generation: null,
      blobKey: key,
      cipherSha256: sent.sha256,
      size: sent.size,
    });
    return entry;
  }

  private putEncrypted(name: string, ciphertext: AsyncIterable<Uint8Array>) {
    return putEncrypted(this.options.target, name, ciphertext);
  }
}
