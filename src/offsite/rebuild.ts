import { createHash } from 'node:crypto';
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { ageDecrypt } from '../age/age-decrypt.ts';
import type { BlobStorage } from '../blobs/blob-storage.ts';
import { DISK_STORAGE_DIR, openBlobStorage } from '../blobs/open-blob-storage.ts';
import type { StorageConfig } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import { openDatabase, SQLITE_FILE_NAME } from '../metadata/database.ts';
import { metadataStore } from '../metadata/metadata-store.ts';
import { migrateExactlyTo, migrateToLatest } from '../metadata/migrate.ts';
import { rowKey } from '../metadata/offsite/offsite-records.ts';
import type { NewAuditEvent } from '../model/audit.ts';
import type { CapturedChange } from '../model/offsite.ts';
import { type CopyHead, type ReadGeneration, readCopy } from './copy-reader.ts';
import { offsiteEntry } from './offsite-audit.ts';
import type { BlobEntry } from './segment-format.ts';
import type { OffsiteTarget } from './target/offsite-target.ts';

export interface RebuildDestination {
  databaseUrl: string | undefined;
  dataDir: string;
  storage: StorageConfig;
}

export interface RebuildOptions {
  target: OffsiteTarget;
  identities: Uint8Array[];
  destination: RebuildDestination;
  /** The state as of this instant (epoch ms): the newest snapshot at or before it, and the changes up to it. */
  at?: number | undefined;
  /** Only this tenant's records and bytes. */
  tenant?: string | undefined;
  head?: CopyHead | undefined;
  /** Who the audit entries of a rebuild to an earlier instant name (OPERATOR_LABEL). */
  operator: string;
  logger: Logger;
  now?: () => number;
  /** A drill's sample: copy (and so check) only this many blobs, picked at random; the rebuilt service is then not whole. */
  blobSample?: number | undefined;
}

export interface RebuildSummary {
  generation: string;
  /** The last segment applied, and the last change's seq and time (a snapshot alone: none). */
  segment: number;
  lastChange: { seq: number; at: number } | undefined;
  rows: number;
  blobs: number;
  bytes: number;
  /** Per tenant, the audit chain's seq the rebuild stopped at. */
  chainHeads: Record<string, number>;
}

export class RebuildRefused extends Error {}

/** The destination holds data: nothing was written, and the copy was not even read. */
export class DestinationNotEmpty extends RebuildRefused {}

/**
 * Builds a working service's database and storage from the copy and the identity alone
 * (docs/offsite.md, "Rebuilding"): the segments are verified first, the rows loaded under the
 * schema they were written in and migrated on, every blob decrypted and checked against its
 * sha256 as it is written; a blob that fails rolls the whole load back. Never into a destination
 * that holds anything.
 */
export async function rebuildFromCopy(options: RebuildOptions): Promise<RebuildSummary> {
  const now = options.now ?? Date.now;
  await assertEmpty(options.destination);
  const report = await readCopy(options.target, { identities: options.identities, head: options.head, checkBlobs: false });
  if (report.failure) throw new RebuildRefused(`the copy does not verify, nothing was written: ${report.failure}`);
  const generation = pickGeneration(report.generations, options.at);
  // A tenant's own copy (its header names the tenant) holds that tenant alone: rebuilt as another,
  // it would load nothing and look like an empty success.
  const owner = generation.segments[0]!.header.tenant;
  if (owner !== undefined && options.tenant !== undefined && options.tenant !== owner) {
    throw new RebuildRefused(`this copy is tenant ${owner}'s own copy and holds no other tenant: rebuild it with --tenant ${owner}`);
  }

  const { db, engine } = await openDatabase({
    databaseUrl: options.destination.databaseUrl,
    dataDir: options.destination.dataDir,
    logger: options.logger,
  });
  const blobs = await openBlobStorage({ dataDir: options.destination.dataDir, storage: options.destination.storage });
  const written: string[] = [];
  let failed = false;
  try {
    const snapshot = generation.segments[0]!;
    await migrateExactlyTo(db, snapshot.header.schema);
    const store = metadataStore(db, engine);
    const filter = options.tenant ? new TenantFilter(options.tenant) : undefined;
    const entries = new Map<string, BlobEntry>();
    const summary: RebuildSummary = {
      generation: generation.generation,
      segment: 0,
      lastChange: undefined,
      rows: 0,
      blobs: 0,
      bytes: 0,
      chainHeads: {},
    };
    const rebuiltAt = now();
    await store.offsite.load(async (loader) => {
      for (const blob of snapshot.blobs) entries.set(blob.key, blob);
      const byTable = new Map<string, Record<string, unknown>[]>();
      for (const record of snapshot.rows) {
        if (filter && !filter.keep(record.t, record.r)) continue;
        const rows = byTable.get(record.t);
        if (rows) rows.push(record.r);
        else byTable.set(record.t, [record.r]);
      }
      for (const [table, rows] of byTable) {
        await loader.insertRows(table, rows);
        summary.rows += rows.length;
      }
      // Every change up to the instant, in the order shipped. Not a cut at the first later one: on
      // PostgreSQL a segment's order is commit order between rows that conflict, and a change of
      // another row may carry an earlier time after a later one. One row's changes are in time order.
      for (const segment of generation.segments.slice(1)) {
        for (const blob of segment.blobs) entries.set(blob.key, blob);
        for (const record of segment.changes) {
          if (options.at !== undefined && record.a > options.at) continue;
          const change: CapturedChange = { seq: record.s, table: record.t, op: record.o, oldKey: record.k, row: record.r, at: record.a };
          summary.segment = segment.header.segment;
          summary.lastChange = { seq: record.s, at: record.a };
          if (filter && !filter.keepChange(change)) continue;
          await loader.applyChange(change);
          summary.rows++;
        }
      }
      await loader.signOutAll(rebuiltAt);
      if (options.destination.storage.s3?.publicBaseUrl) await loader.queuePublicCopies(rebuiltAt);
      let named = await loader.namedBlobs();
      if (options.blobSample !== undefined) named = sample(named, options.blobSample);
      for (const key of named) {
        const entry = entries.get(key);
        if (entry === undefined || entry.gone) throw new RebuildRefused(`a record names the blob ${key}, which the copy does not hold`);
        summary.bytes += await copyBlob(options.target, options.identities, blobs, entry, written);
        summary.blobs++;
      }
    });
    await migrateToLatest(db, engine);
    const rebuilt = metadataStore(db, engine);
    const { rows: heads } = await sql<{ tenant_id: string; seq: number }>`select tenant_id, seq from audit_heads`.execute(db);
    for (const head of heads) summary.chainHeads[head.tenant_id] = Number(head.seq);
    if (options.at !== undefined) {
      // Each chain says where the history it holds stops: what came after is not lost by accident.
      for (const head of heads) {
        const entry = rebuildEntry(head.tenant_id, options, summary, rebuiltAt);
        await rebuilt.files.appendAudit(entry);
        summary.chainHeads[head.tenant_id] = Number(head.seq) + 1;
      }
    }
    return summary;
  } catch (error) {
    for (const key of written) await blobs.delete(key).catch(() => undefined);
    failed = true;
    throw error;
  } finally {
    await blobs.close();
    await db.destroy();
    // The load rolled back and the blobs written were deleted, but the database it was made in (and
    // migrated) stayed, a SQLite file or tables, and so did the blobs' folders: assertEmpty refused
    // the retry. Taken back too, so that a refused rebuild has written nothing.
    if (failed) await undoFailedRebuild(options.destination).catch(() => undefined);
  }
}

function sample<T>(items: T[], count: number): T[] {
  const shuffled = [...items];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  return shuffled.slice(0, count);
}

function pickGeneration(generations: ReadGeneration[], at: number | undefined): ReadGeneration {
  if (at === undefined) return generations[generations.length - 1]!;
  const candidates = generations.filter((g) => g.segments[0]!.header.createdAt <= at);
  if (candidates.length === 0) {
    const oldest = new Date(generations[0]!.segments[0]!.header.createdAt).toISOString();
    throw new RebuildRefused(`the copy holds no state as early as ${new Date(at).toISOString()}: its oldest snapshot is of ${oldest}`);
  }
  return candidates[candidates.length - 1]!;
}

async function copyBlob(
  target: OffsiteTarget,
  identities: Uint8Array[],
  blobs: BlobStorage,
  entry: BlobEntry,
  written: string[],
): Promise<number> {
  const hash = createHash('sha256');
  let size = 0;
  const plaintext = (async function* () {
    for await (const chunk of ageDecrypt(identities, await target.get(entry.object))) {
      hash.update(chunk);
      size += chunk.byteLength;
      yield chunk;
    }
    // Checked before the stream ends: storage keeps nothing of bytes that are not the recorded ones.
    const sha256 = hash.digest('hex');
    if (sha256 !== entry.sha256 || size !== entry.size) {
      throw new RebuildRefused(
        `the blob of ${entry.key} (${entry.object}) decrypts to ${size} bytes of sha256 ${sha256}, not the recorded ${entry.size} of ${entry.sha256}`,
      );
    }
  })();
  written.push(entry.key);
  try {
    await blobs.put(entry.key, Readable.from(plaintext));
  } catch (error) {
    if (error instanceof RebuildRefused) throw error;
    // The object too, as verify names it: the key is the primary's name, the object is what is at the target.
    throw new RebuildRefused(`the blob of ${entry.key} (${entry.object}) could not be restored: ${(error as Error).message}`);
  }
  return size;
}

function rebuildEntry(tenantId: string, options: RebuildOptions, summary: RebuildSummary, at: number): NewAuditEvent {
  return offsiteEntry(
    tenantId,
    'offsite.rebuild',
    'ok',
    {
      asOf: new Date(options.at!).toISOString(),
      stoppedAtChainSeq: summary.chainHeads[tenantId] ?? 0,
      generation: summary.generation,
      segment: summary.segment,
      lastChangeSeq: summary.lastChange?.seq ?? null,
    },
    at,
    options.operator,
  );
}

/** Refuses a destination that holds anything: a rebuild never mixes a copy into other data. */
async function assertEmpty(destination: RebuildDestination): Promise<void> {
  if (destination.databaseUrl === undefined) {
    const file = path.join(destination.dataDir, SQLITE_FILE_NAME);
    if (await exists(file)) throw new DestinationNotEmpty(`${file} exists: a rebuild writes only into an empty DATA_DIR`);
  } else {
    const { db } = await openDatabase({ databaseUrl: destination.databaseUrl, dataDir: destination.dataDir, logger: SILENT });
    try {
      const { rows } = await sql<{
        n: number;
      }>`select count(*)::int as n from information_schema.tables where table_schema = current_schema()`.execute(db);
      if ((rows[0]?.n ?? 0) > 0)
        throw new DestinationNotEmpty(`the database holds ${rows[0]!.n} tables: a rebuild writes only into an empty database`);
    } finally {
      await db.destroy();
    }
  }
  if (destination.storage.kind === 'disk') {
    const dir = path.join(destination.dataDir, DISK_STORAGE_DIR);
    if ((await exists(dir)) && (await readdir(dir)).length > 0)
      throw new DestinationNotEmpty(`${dir} is not empty: a rebuild writes only into empty storage`);
    return;
  }
  const blobs = await openBlobStorage({ dataDir: destination.dataDir, storage: destination.storage });
  try {
    // Every key the storage writes is under one of these (blob-layout.ts): live and kept bytes, and the legacy live files.
    for (const prefix of ['objects', 'files']) {
      for await (const object of blobs.list(prefix)) {
        throw new DestinationNotEmpty(
          `the bucket ${destination.storage.s3?.bucket} holds objects (${object.key}): a rebuild writes only into an empty bucket`,
        );
      }
    }
  } finally {
    await blobs.close();
  }
}

/** Removes the database and the folders a failed rebuild created; assertEmpty found neither there before it. */
async function undoFailedRebuild(destination: RebuildDestination): Promise<void> {
  if (destination.storage.kind === 'disk') await removeEmptyFolders(path.join(destination.dataDir, DISK_STORAGE_DIR));
  if (destination.databaseUrl === undefined) {
    const file = path.join(destination.dataDir, SQLITE_FILE_NAME);
    for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${file}${suffix}`, { force: true });
    return;
  }
  const { db } = await openDatabase({ databaseUrl: destination.databaseUrl, dataDir: destination.dataDir, logger: SILENT });
  try {
    const { rows } = await sql<{
      name: string;
    }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db);
    for (const { name } of rows) await sql`drop table if exists ${sql.id(name)} cascade`.execute(db);
  } finally {
    await db.destroy();
  }
}

/** The folders below dir that hold no file, deepest first (a folder that holds one stays). */
async function removeEmptyFolders(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    const folder = path.join(dir, entry.name);
    await removeEmptyFolders(folder);
    await rmdir(folder).catch(() => undefined);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

const SILENT: Logger = { warn: () => undefined, error: () => undefined };

/** The rows of one tenant (--tenant), told by the tenant, channel, admin or proposal they belong to. */
class TenantFilter {
  private readonly kept = new Set<string>();
  private readonly channels = new Set<string>();
  private readonly admins = new Set<string>();
  private readonly proposals = new Set<string>();

  constructor(private readonly tenant: string) {}

  keep(table: string, row: Record<string, unknown>): boolean {
    const mine = this.belongs(table, row);
    if (mine) this.remember(table, row);
    return mine;
  }

  keepChange(change: CapturedChange): boolean {
    if (change.row) return this.keep(change.table, change.row);
    return change.oldKey !== null && this.kept.has(rowKey(change.table, change.oldKey));
  }

  private belongs(table: string, row: Record<string, unknown>): boolean {
    switch (table) {
      case 'tenants':
        return row.id === this.tenant;
      case 'demo_seeding':
        return true;
      case 'revoked_messages':
        return false;
      case 'admin_permissions':
      case 'admin_features':
        return this.admins.has(String(row.admin_id));
      case 'proposal_approvals':
        return this.proposals.has(String(row.proposal_id));
      case 'legacy_spellings':
        return row.scope_id === this.tenant || this.channels.has(String(row.scope_id));
      default:
        if ('tenant_id' in row) return row.tenant_id === this.tenant;
        return this.channels.has(String(row.channel_id));
    }
  }

  private remember(table: string, row: Record<string, unknown>): void {
    this.kept.add(rowKey(table, row));
    if (table === 'channels') this.channels.add(String(row.id));
    if (table === 'admins') this.admins.add(String(row.id));
    if (table === 'proposals') this.proposals.add(String(row.id));
  }
}
