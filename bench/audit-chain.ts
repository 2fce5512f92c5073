/**
 * What chaining costs each audited write (docs/audit-chain.md, "Cost"): appends of the same events
 * to the chain (audit-chain-records.ts: a transaction that advances the tenant's head, hashes the
 * entry's canonical JSON and inserts the row) and, interleaved with them round after round, the plain
 * INSERT every append was before. Reports, per engine, the median round's milliseconds per 1,000
 * appends and this process's CPU time per append (the database server's own is not in it on PostgreSQL).
 *
 *   node --import tsx bench/audit-chain.ts [--rounds 7] [--appends 1000] [--engines sqlite,postgres]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { createLogger } from '../src/logging/logger.ts';
import { auditLog } from '../src/metadata/catalog/audit-log.ts';
import { auditRow } from '../src/metadata/catalog/file-catalog-rows.ts';
import { openPostgresDatabase, openSqliteDatabase } from '../src/metadata/database.ts';
import { legacySpellings } from '../src/metadata/legacy-spellings.ts';
import { migrateToLatest } from '../src/metadata/migrate.ts';
import type { Database, Engine } from '../src/metadata/schema.ts';
import type { NewAuditEvent } from '../src/model/audit.ts';
import { newAuditId } from '../src/model/ids.ts';
import { createTestDatabase } from '../test/helpers/postgres.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    appends: { type: 'string', default: '1000' },
    engines: { type: 'string', default: 'sqlite,postgres' },
  },
});
const ROUNDS = Number(values.rounds);
const APPENDS = Number(values.appends);

/** A typical file event: an upload with its names and hash. */
const event = (i: number): NewAuditEvent => ({
  tenantId: 't_bench',
  channelId: 'chn_bench',
  adminId: 'adm_bench',
  action: 'upload',
  folder: 'uploads',
  filename: `file-${i}.bin`,
  backupTimestamp: null,
  versionId: null,
  at: null,
  result: 'ok',
  code: null,
  sha256: 'a3f1c0b2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f',
  createdAt: Date.now(),
  operationId: null,
  operation: null,
});

type Figure = { ms: number; cpuUs: number };

/** One round of APPENDS sequential appends (as the service writes them, one request's event at a time). */
async function round(append: (i: number) => Promise<unknown>): Promise<Figure> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < APPENDS; i++) await append(i);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms: (ms * 1000) / APPENDS, cpuUs: (used.user + used.system) / APPENDS };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(engine: Engine, db: Kysely<Database>): Promise<void> {
  await migrateToLatest(db, engine);
  const chained = auditLog(db, legacySpellings(db));
  const ways = {
    plain: (i: number) =>
      db
        .insertInto('audit_events')
        .values(auditRow(newAuditId(), event(i)))
        .execute(),
    chained: (i: number) => chained.appendAudit(event(i)),
  };
  // A warm-up of each, discarded; then the two in turns, so that drift (caches, the WAL's growth) falls on both.
  await round(ways.plain);
  await round(ways.chained);
  const runs: Record<keyof typeof ways, Figure[]> = { plain: [], chained: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? (['plain', 'chained'] as const) : (['chained', 'plain'] as const);
    for (const way of order) runs[way].push(await round(ways[way]));
  }
  const plainMs = median(runs.plain.map((f) => f.ms));
  const chainedMs = median(runs.chained.map((f) => f.ms));
  const plainCpu = median(runs.plain.map((f) => f.cpuUs));
  const chainedCpu = median(runs.chained.map((f) => f.cpuUs));
  console.log(
    `${engine.padEnd(8)} plain ${plainMs.toFixed(1)} ms/1,000 (${plainCpu.toFixed(0)} µs CPU each) | chained ${chainedMs.toFixed(1)} ms/1,000 ` +
      `(${chainedCpu.toFixed(0)} µs CPU each) | +${(chainedMs - plainMs).toFixed(1)} ms/1,000, ×${(chainedMs / plainMs).toFixed(2)} time, +${(chainedCpu - plainCpu).toFixed(0)} µs CPU per append`,
  );
}

console.log(`${ROUNDS} interleaved rounds of ${APPENDS} sequential appends each, medians`);
for (const engine of values.engines.split(',') as Engine[]) {
  if (engine === 'sqlite') {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-audit-chain-'));
    const db = await openSqliteDatabase(path.join(dir, 'metadata.sqlite'));
    try {
      await measure('sqlite', db);
    } finally {
      await db.destroy();
      await rm(dir, { recursive: true, force: true });
    }
  } else {
    const database = await createTestDatabase();
    const db = await openPostgresDatabase(database.url, createLogger('error'));
    try {
      await measure('postgres', db);
    } finally {
      await db.destroy();
      await database.drop();
    }
  }
}
