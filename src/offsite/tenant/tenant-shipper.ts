import { createHash, randomUUID } from 'node:crypto';
import { ageEncrypt } from '../../age/age-encrypt.ts';
import { parseRecipients } from '../../age/age-keys.ts';
import type { BlobStorage } from '../../blobs/blob-storage.ts';
import type { Logger } from '../../logging/logger.ts';
import { BLOB_COLUMNS } from '../../metadata/offsite/shipped-tables.ts';
import type { MetadataStore } from '../../model/metadata-store.ts';
import type { TenantOffsiteState, TenantOffsiteTarget, TenantShipment, TenantSnapshot } from '../../model/tenant-offsite.ts';
import { putEncrypted } from '../encrypted-object.ts';
import { blobName, newGeneration, segmentName } from '../object-names.ts';
import { type BlobEntry, type ChangeRecord, encodeSegment, SEGMENT_FORMAT, type SegmentHeader, sha256Hex } from '../segment-format.ts';
import type { OffsiteTarget } from '../target/offsite-target.ts';
import { claimTarget } from '../target-marker.ts';

/** Opens a tenant's target with its secret unsealed (tenant-targets.ts): the outbound rules apply to every connection. */
export type OpenTenantTarget = (target: TenantOffsiteTarget) => Promise<OffsiteTarget>;

export interface TenantShipperSettings {
  /** How often the rounds look for tenants with changes. */
  intervalMs: number;
  /** A new generation (snapshot) after this long. */
  snapshotEveryMs: number;
  /** Tenants shipped at once: a slow target holds one of these, never the others. */
  concurrency: number;
  /** Even with no audited change, the rows are compared with the copy's this often. */
  rescanMs: number;
  /** The longest a failing target waits between tries. */
  backoffMaxMs: number;
}

const LEASE_MS = 60_000;
const BLOB_TABLES = new Set<string>(Object.keys(BLOB_COLUMNS));
const BLOBS_AT_ONCE = 4;
const NAMING_SECRET = 'offsite-blob-names';

/**
 * Ships each tenant's own copy to the tenant's own target (docs/offsite.md, "A tenant's own
 * copy"), in the operator copy's format: a snapshot of the tenant's rows, then segments of what
 * changed, each with the blobs its rows name sent before it, all encrypted to the tenant's
 * recipients. A round compares the tenant's rows now with what the copy holds (each row's hash,
 * kept in the database) and ships the difference; it runs when the tenant's audit chain has moved
 * (every change commits with its entry) and at least every `rescanMs`. Nothing here is on a
 * request's path, and a tenant's target never waits on another's: each has its own slot, lease
 * and backoff, apart from the operator's shipper.
 */
export class TenantShipper {
  private readonly token = randomUUID();
  private readonly now: () => number;
  private readonly running = new Map<string, Promise<void>>();
  /** The targets rounds have open: a stop closes them, so that a store that never answers does not hold a shutdown. */
  private readonly opened = new Set<OffsiteTarget>();
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private stopped = false;
  private namingKey: string | undefined;

  constructor(
    private readonly deps: {
      store: MetadataStore;
      blobs: BlobStorage;
      openTarget: OpenTenantTarget;
      settings: TenantShipperSettings;
      logger: Logger;
      now?: () => number;
    },
  ) {
    this.now = deps.now ?? Date.now;
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => {
      this.looking ??= this.look().finally(() => (this.looking = undefined));
    }, this.deps.settings.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.looking;
    for (const target of this.opened) await target.close().catch(() => undefined);
    await Promise.all(this.running.values());
  }

  /** Every tenant with a target whose turn it is gets a round, up to `concurrency` at once. */
  private async look(): Promise<void> {
    let targets: TenantOffsiteTarget[];
    try {
      targets = await this.deps.store.tenantOffsite.targets();
    } catch (err) {
      this.deps.logger.warn({ err }, "tenants' off-site copies: could not read the targets; the next look tries again");
      return;
    }
    for (const target of targets) {
      if (this.stopped || this.running.size >= this.deps.settings.concurrency) return;
      if (this.running.has(target.tenantId)) continue;
      const round = this.round(target.tenantId, false)
        .catch(() => undefined)
        .finally(() => this.running.delete(target.tenantId));
      this.running.set(target.tenantId, round);
    }
  }

  /**
   * Ships the tenant's changes now, whether due or not (the CLI, tests); throws what failed, which
   * is also recorded as the target's last error. Waits for a round under way first.
   */
  async shipNow(tenantId: string): Promise<void> {
    await this.running.get(tenantId);
    const round = this.round(tenantId, true);
    this.running.set(
      tenantId,
      round.then(
        () => undefined,
        () => undefined,
      ),
    );
    try {
      await round;
    } finally {
      this.running.delete(tenantId);
    }
  }

  private async round(tenantId: string, forced: boolean): Promise<void> {
    const { store, logger } = this.deps;
    const target = await store.tenantOffsite.getTarget(tenantId);
    if (target === undefined) return;
    const before = await store.tenantOffsite.state(tenantId);
    const now = this.now();
    if (!forced && before?.revision === target.revision && !(await this.due(tenantId, before, now))) return;
    if (!(await store.tenantOffsite.holdLease(tenantId, target.revision, this.token, now + LEASE_MS, now))) return;
    let opened: OffsiteTarget | undefined;
    try {
      const state = (await store.tenantOffsite.state(tenantId))!;
      opened = await this.deps.openTarget(target);
      this.opened.add(opened);
      await this.ship(target, state, opened);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const failures = (await store.tenantOffsite.state(tenantId))?.failures ?? 0;
      const wait = Math.min(this.deps.settings.backoffMaxMs, 1000 * 2 ** Math.min(failures, 20));
      // A round cut by the service's stop is no failure of the target: the next start goes on.
      if (!this.stopped) {
        logger.warn(
          { err, tenantId, target: opened?.description ?? target.url },
          "a tenant's off-site shipping failed; the next round tries again",
        );
        await store.tenantOffsite.noteError(tenantId, message, this.now(), this.now() + wait).catch(() => undefined);
      }
      if (forced) throw err;
    } finally {
      if (opened) this.opened.delete(opened);
      await opened?.close().catch(() => undefined);
      await store.tenantOffsite.releaseLease(tenantId, this.token).catch(() => undefined);
    }
  }

  /** Whether a round has anything to do: a failed one waits its backoff; else news in the chain, a stale generation or a rescan due. */
  private async due(tenantId: string, state: TenantOffsiteState, now: number): Promise<boolean> {
    if (state.nextAttemptAt !== null && state.nextAttemptAt > now) return false;
    if (state.generation === null || state.lastError !== null) return true;
    if (state.generationAt !== null && now - state.generationAt >= this.deps.settings.snapshotEveryMs) return true;
    if (state.scannedAt === null || now - state.scannedAt >= this.deps.settings.rescanMs) return true;
    const { headSeq } = await this.deps.store.tenantOffsite.backlog(tenantId, state.shippedSeq);
    return headSeq > state.shippedSeq;
  }

  private async ship(target: TenantOffsiteTarget, state: TenantOffsiteState, opened: OffsiteTarget): Promise<void> {
    const { store } = this.deps;
    this.namingKey ??= await store.serviceSecret(NAMING_SECRET, () => randomUUID() + randomUUID());
    let targetId = state.targetId;
    if (targetId === null) {
      targetId = await claimTarget(opened, target.tenantId);
      await store.tenantOffsite.setTargetId(target.tenantId, targetId);
    }
    const recipients = parseRecipients(target.recipients.join(','));
    const at = this.now();
    const stale = state.generationAt !== null && at - state.generationAt >= this.deps.settings.snapshotEveryMs;
    if (state.generation === null || state.segment === null || stale) {
      await this.snapshot(target, { ...state, targetId }, opened, recipients);
      return;
    }
    const rows = await store.tenantOffsite.readTenant(target.tenantId, state.shippedSeq);
    if (rows.schemaVersion !== state.schemaVersion) {
      await this.snapshot(target, { ...state, targetId }, opened, recipients);
      return;
    }
    const shipped = await store.tenantOffsite.shippedRows(target.tenantId);
    const { changes, hashes } = difference(rows, shipped, at);
    if (changes.length === 0) {
      await store.tenantOffsite.noteScanned(target.tenantId, rows.headSeq, at);
      return;
    }
    const blobs = await this.shipBlobs(
      target.tenantId,
      opened,
      recipients,
      changes.filter((c) => c.r !== null && BLOB_TABLES.has(c.t)).map((c) => c.r!),
    );
    const segment = state.segment + 1;
    const header: SegmentHeader = {
      format: SEGMENT_FORMAT,
      target: targetId,
      generation: state.generation,
      segment,
      kind: 'changes',
      prev: state.segmentHash,
      previousGeneration: null,
      schema: rows.schemaVersion,
      createdAt: at,
      auditHeads: headsOf(rows),
      blobs: blobs.entries.length,
      records: changes.length,
      tenant: target.tenantId,
      changesFrom: at,
      changesTo: at,
    };
    const plaintext = encodeSegment(header, blobs.entries, changes);
    const sent = await putEncrypted(opened, segmentName(state.generation, segment), ageEncrypt(recipients, plaintext));
    if (!sent.written) {
      // A round that died after sending this segment and before recording it left it there: its
      // contents are not these, and cannot be read here (only the tenant's identity can). The copy
      // goes on in a new generation; that segment stays as the last of the old one.
      await this.snapshot(target, { ...state, targetId }, opened, recipients);
      return;
    }
    await this.record(target, rows, { kind: 'changes', generation: state.generation, segment, plaintext, sent, hashes, blobs, at });
  }

  private async snapshot(
    target: TenantOffsiteTarget,
    state: TenantOffsiteState,
    opened: OffsiteTarget,
    recipients: Uint8Array[],
  ): Promise<void> {
    const rows = await this.deps.store.tenantOffsite.readTenant(target.tenantId, 0);
    const at = this.now();
    const generation = newGeneration(at);
    const records: { t: string; r: Record<string, unknown> }[] = [];
    const hashes: TenantShipment['rows'] = [];
    const blobRows: Record<string, unknown>[] = [];
    for (const table of rows.tables) {
      for (const row of table.rows) {
        records.push({ t: table.name, r: row });
        if (table.name !== 'audit_events') hashes.push({ table: table.name, key: keyOf(table.key, row), hash: rowHash(row) });
        if (BLOB_TABLES.has(table.name)) blobRows.push(row);
      }
    }
    const blobs = await this.shipBlobs(target.tenantId, opened, recipients, blobRows);
    const header: SegmentHeader = {
      format: SEGMENT_FORMAT,
      target: state.targetId!,
      generation,
      segment: 0,
      kind: 'snapshot',
      prev: null,
      previousGeneration:
        state.generation !== null && state.segment !== null && state.segmentHash !== null
          ? { generation: state.generation, segment: state.segment, hash: state.segmentHash }
          : null,
      schema: rows.schemaVersion,
      createdAt: at,
      auditHeads: headsOf(rows),
      blobs: blobs.entries.length,
      records: records.length,
      tenant: target.tenantId,
    };
    const plaintext = encodeSegment(header, blobs.entries, records);
    const sent = await putEncrypted(opened, segmentName(generation, 0), ageEncrypt(recipients, plaintext));
    await this.record(target, rows, { kind: 'snapshot', generation, segment: 0, plaintext, sent, hashes, blobs, at });
  }

  /** Records a segment sent (its hash, the rows and blobs it brought the copy), while the lease is still this round's. */
  private async record(
    target: TenantOffsiteTarget,
    rows: TenantSnapshot,
    segment: {
      kind: TenantShipment['kind'];
      generation: string;
      segment: number;
      plaintext: Buffer;
      sent: { size: number };
      hashes: TenantShipment['rows'];
      blobs: { shipped: string[]; bytes: number };
      at: number;
    },
  ): Promise<void> {
    const recorded = await this.deps.store.tenantOffsite.recordShipment({
      tenantId: target.tenantId,
      token: this.token,
      revision: target.revision,
      kind: segment.kind,
      generation: segment.generation,
      segment: segment.segment,
      segmentHash: sha256Hex(segment.plaintext),
      schemaVersion: rows.schemaVersion,
      rows: segment.hashes,
      blobKeys: segment.blobs.shipped,
      headSeq: rows.headSeq,
      at: segment.at,
      bytes: segment.sent.size + segment.blobs.bytes,
      objects: 1 + segment.blobs.shipped.length,
    });
    // The lease lapsed meanwhile and another instance went on: what this round sent is at the target all the same.
    if (!recorded) throw new Error("the lease of this tenant's shipping lapsed during the round; the instance that holds it now goes on");
  }

  /** The blobs rows name, each once, sent unless the target holds them; in the rows' order. */
  private async shipBlobs(
    tenantId: string,
    target: OffsiteTarget,
    recipients: Uint8Array[],
    rows: Record<string, unknown>[],
  ): Promise<{ entries: BlobEntry[]; shipped: string[]; bytes: number }> {
    const byKey = new Map<string, Record<string, unknown>>();
    for (const row of rows) if (row.blob_key !== null && row.blob_key !== undefined) byKey.set(String(row.blob_key), row);
    const pending = [...byKey.values()];
    const entries = new Map<string, BlobEntry>();
    const shipped: string[] = [];
    let bytes = 0;
    const worker = async () => {
      for (let row = pending.shift(); row !== undefined; row = pending.shift()) {
        const key = String(row.blob_key);
        const entry: BlobEntry = { key, object: blobName(this.namingKey!, key), sha256: String(row.sha256), size: Number(row.size) };
        entries.set(key, entry);
        if (await this.deps.store.tenantOffsite.shippedBlob(tenantId, key)) continue;
        const stream = await this.deps.blobs.get(key);
        if (stream === undefined) {
          // Removed since the rows were read (retention): the next round ships that row's removal.
          if (!(await this.deps.store.offsite.blobNamed(key))) {
            entry.gone = true;
            continue;
          }
          throw new Error(`the blob ${key} that a record names is missing from the primary storage`);
        }
        const plainHash = createHash('sha256');
        const counted = (async function* () {
          for await (const chunk of stream as AsyncIterable<Uint8Array>) {
            plainHash.update(chunk);
            yield chunk;
          }
        })();
        const sent = await putEncrypted(target, entry.object, ageEncrypt(recipients, counted));
        if (!sent.written) stream.destroy();
        else if (plainHash.digest('hex') !== entry.sha256) {
          this.deps.logger.error({ blobKey: key, tenantId }, "a blob did not match its recorded sha256 when shipped to a tenant's target");
          entry.damaged = 'mismatch';
        }
        bytes += sent.size;
        shipped.push(key);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BLOBS_AT_ONCE, pending.length) }, worker));
    return { entries: [...byKey.keys()].map((key) => entries.get(key)!), shipped, bytes };
  }
}

/**
 * What changed between the tenant's rows now and the copy's (their hashes): deletions first, the
 * children before their parents, then insertions and updates, parents first, so that a rebuild
 * applying them in order never breaks a foreign key. Audit entries are only ever added.
 */
function difference(
  rows: TenantSnapshot,
  shipped: Map<string, string>,
  at: number,
): { changes: ChangeRecord[]; hashes: TenantShipment['rows'] } {
  const deletes: ChangeRecord[] = [];
  const upserts: ChangeRecord[] = [];
  const hashes: TenantShipment['rows'] = [];
  const seen = new Set<string>();
  let seq = 0;
  for (const table of rows.tables) {
    for (const row of table.rows) {
      if (table.name === 'audit_events') {
        upserts.push({ s: 0, t: table.name, o: 'insert', k: null, r: row, a: at });
        continue;
      }
      const key = keyOf(table.key, row);
      const hash = rowHash(row);
      const id = `${table.name}\u0000${key}`;
      seen.add(id);
      const before = shipped.get(id);
      if (before === hash) continue;
      upserts.push({
        s: 0,
        t: table.name,
        o: before === undefined ? 'insert' : 'update',
        k: before === undefined ? null : keyColumns(table.key, key),
        r: row,
        a: at,
      });
      hashes.push({ table: table.name, key, hash });
    }
  }
  for (const table of [...rows.tables].reverse()) {
    if (table.name === 'audit_events') continue;
    const prefix = `${table.name}\u0000`;
    for (const id of shipped.keys()) {
      if (!id.startsWith(prefix) || seen.has(id)) continue;
      const key = id.slice(prefix.length);
      deletes.push({ s: 0, t: table.name, o: 'delete', k: keyColumns(table.key, key), r: null, a: at });
      hashes.push({ table: table.name, key, hash: null });
    }
  }
  const changes = [...deletes, ...upserts];
  for (const change of changes) change.s = ++seq;
  return { changes, hashes };
}

function keyOf(columns: readonly string[], row: Record<string, unknown>): string {
  return JSON.stringify(columns.map((column) => row[column]));
}

function keyColumns(columns: readonly string[], key: string): Record<string, unknown> {
  const values = JSON.parse(key) as unknown[];
  return Object.fromEntries(columns.map((column, i) => [column, values[i]]));
}

function rowHash(row: Record<string, unknown>): string {
  const sorted = Object.keys(row)
    .sort()
    .map((column) => [column, row[column] instanceof Uint8Array ? Buffer.from(row[column] as Uint8Array).toString('base64') : row[column]]);
  return createHash('sha256').update(JSON.stringify(sorted)).digest('hex');
}

function headsOf(rows: TenantSnapshot): SegmentHeader['auditHeads'] {
  const heads: SegmentHeader['auditHeads'] = {};
  for (const row of rows.tables.find((table) => table.name === 'audit_heads')?.rows ?? []) {
    heads[String(row.tenant_id)] = { seq: Number(row.seq), hash: String(row.hash) };
  }
  return heads;
}
