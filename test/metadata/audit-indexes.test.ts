import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { CompiledQuery, type Kysely, Migrator, type RootOperationNode, sql } from 'kysely';
import type { Logger } from '../../src/logging/logger.ts';
import { fileCatalog } from '../../src/metadata/catalog/file-catalog.ts';
import { auditRow } from '../../src/metadata/catalog/file-catalog-rows.ts';
import { openDatabase } from '../../src/metadata/database.ts';
import { migrateToLatest } from '../../src/metadata/migrate.ts';
import { migrationProvider } from '../../src/metadata/migrations/index.ts';
import type { Database } from '../../src/metadata/schema.ts';
import type { AuditFilter, NewAuditEvent } from '../../src/model/audit.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTestDatabase } from '../helpers/postgres.ts';

const silent: Logger = { warn() {}, error() {} };
const FILTER_INDEXES = {
  action: 'audit_events_action_idx',
  adminId: 'audit_events_admin_idx',
  folder: 'audit_events_folder_idx',
  filename: 'audit_events_filename_idx',
  result: 'audit_events_result_idx',
} as const;

async function auditIndexes(db: Kysely<Database>, engine: 'sqlite' | 'postgres'): Promise<string[]> {
  const { rows } =
    engine === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'audit_events'`.execute(db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'audit_events'`.execute(db);
  return rows.map((r) => r.name).sort();
}

const event = (i: number, overrides: Partial<NewAuditEvent> = {}): NewAuditEvent => ({
  tenantId: 't_1',
  channelId: 'chn_1',
  adminId: i % 3 === 0 ? 'adm_b' : 'adm_a',
  action: (['upload', 'delete', 'backup', 'restore'] as const)[i % 4]!,
  folder: i % 2 === 0 ? 'docs' : 'img',
  filename: `f${i % 5}.txt`,
  backupTimestamp: null,
  versionId: null,
  at: null,
  result: i % 7 === 0 ? 'refused' : 'ok',
  code: null,
  sha256: null,
  createdAt: 1_700_000_000_000 + i,
  operationId: null,
  operation: null,
  ...overrides,
});

for (const engine of ENGINES) {
  test(`a ${engine} database made before the audit filters is upgraded: its events stay and are listed by filter`, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-audit-idx-'));
    const database = engine === 'postgres' ? await createTestDatabase() : undefined;
    const { db } = await openDatabase({ dataDir, databaseUrl: database?.url, logger: silent });
    try {
      const before = await new Migrator({ db, provider: migrationProvider }).migrateTo('002-files-backups-audit');
      assert.equal(before.error, undefined);
      const older = await auditIndexes(db, engine);
      assert.ok(older.includes('audit_events_channel_idx'), older.join());
      for (const name of Object.values(FILTER_INDEXES)) assert.ok(!older.includes(name), `${name} is new`);
      // Events written by the older version, straight into its table (without the columns of migrations 009, 013, 016 and 018).
      for (let i = 0; i < 40; i++) {
        const {
          operation_id,
          operation_details,
          restore_at,
          target_admin_id,
          change_details,
          chain_seq,
          prev_hash,
          entry_hash,
          intents,
          operator,
          proposal_id,
          ...older
        } = auditRow(`aud_${String(i).padStart(4, '0')}`, event(i));
        await db.insertInto('audit_events').values(older).execute();
      }

      // Later migrations run too; 003 first.
      assert.equal((await migrateToLatest(db, engine))[0], '003-audit-filter-indexes');
      const indexes = await auditIndexes(db, engine);
      for (const name of Object.values(FILTER_INDEXES)) assert.ok(indexes.includes(name), `${name} in ${indexes}`);

      const catalog = fileCatalog(db);
      const everything = (await catalog.listAudit('chn_1', { limit: 1000 })).items;
      assert.equal(everything.length, 40);
      const filters: AuditFilter[] = [
        { action: 'restore' },
        { adminId: 'adm_b' },
        { folder: 'img' },
        { filename: 'f3.txt' },
        { result: 'refused' },
        { folder: 'docs', filename: 'f0.txt', action: 'upload' },
      ];
      for (const filter of filters) {
        const expected = everything.filter((e) => Object.entries(filter).every(([k, v]) => e[k as keyof typeof e] === v)).map((e) => e.id);
        assert.ok(expected.length > 0 && expected.length < 40, JSON.stringify(filter));
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await catalog.listAudit('chn_1', { limit: 3, cursor }, filter);
          ids.push(...page.items.map((e) => e.id));
          cursor = page.next ?? undefined;
        } while (cursor !== undefined);
        assert.deepEqual(ids, expected, JSON.stringify(filter));
      }
      assert.deepEqual((await catalog.listAudit('chn_other', { limit: 10 }, { action: 'upload' })).items, [], 'one channel only');

      // Events written before migration 009 belong to no operation; those written after can.
      assert.ok(everything.every((e) => e.operationId === null && e.operation === null));
      const operation = {
        scope: 'folder' as const,
        at: null,
        delete: true,
        dryRun: false,
        safetyBackup: '20260101_000000',
        counts: { replaced: 1, created: 0, deleted: 2, unchanged: 3, failed: 0 },
      };
      const own = await catalog.appendAudit(event(100, { operationId: 'op_1', operation, filename: null }));
      const step = await catalog.appendAudit(event(101, { operationId: 'op_1' }));
      await catalog.appendAudit(event(102, { operationId: 'op_2' }));
      const listed = (await catalog.listAudit('chn_1', { limit: 10 }, { operationId: 'op_1' })).items;
      assert.deepEqual(
        listed.map((e) => e.id),
        [step.id, own.id],
      );
      assert.deepEqual(listed[1]!.operation, operation, 'the operation record reads back as written');
    } finally {
      await db.destroy();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}

test('on SQLite each filter reads its own index, in the listing order (no scan of the whole channel log, no sort)', async () => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-audit-plan-'));
  const { db } = await openDatabase({ dataDir, logger: silent });
  try {
    await migrateToLatest(db, 'sqlite');
    // The operation filter's index came with migration 009.
    for (const [field, index] of Object.entries({ ...FILTER_INDEXES, operationId: 'audit_events_operation_idx' })) {
      const filter = { [field]: field === 'action' ? 'restore' : field === 'result' ? 'failed' : 'x' } as AuditFilter;
      // The catalog's own query, caught on its way to the driver and explained instead of run: the
      // last one it runs (before it, the catalog may read once which channels have legacy spellings).
      let caught: RootOperationNode | undefined;
      const spy = db.withPlugin({
        transformQuery: ({ node }) => {
          caught = node;
          return node;
        },
        transformResult: async ({ result }) => result,
      });
      await fileCatalog(spy).listAudit('chn_1', { limit: 10, cursor: undefined }, filter);
      assert.ok(caught, 'the listing ran a query');
      const compiled = db.getExecutor().compileQuery(caught, { queryId: 'plan' });
      const plan = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      const details = plan.rows.map((r) => r.detail).join(' | ');
      assert.match(details, new RegExp(`USING INDEX ${index}\\b`), `${field}: ${details}`);
      assert.doesNotMatch(details, /TEMP B-TREE/, `${field} needs no sort: ${details}`);
    }
  } finally {
    await db.destroy();
    await rm(dataDir, { recursive: true, force: true });
  }
});
