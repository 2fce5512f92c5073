import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Kysely, Migrator } from 'kysely';
import { chainEntry, ZERO_HASH } from '../../src/audit-chain/chain-entry.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openPostgresDatabase, openSqliteDatabase, SQLITE_FILE_NAME } from '../../src/metadata/database.ts';
import { migrationNames, migrationProvider } from '../../src/metadata/migrations/index.ts';
import type { Database } from '../../src/metadata/schema.ts';
import type { NewAuditEvent } from '../../src/model/audit.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { runCli } from '../helpers/cli.ts';
import { FilesClient } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';
import { signedIntents } from './intent-vectors.ts';

/**
 * The tenant's audit chain on both engines (docs/audit-chain.md): real writes of the service chain
 * themselves; the export of an untouched log verifies with the CLI, which needs nothing but the file;
 * every kind of tampering, in the database or in the file, makes `audit verify` fail and name the
 * first entry that fails; concurrent appends (two instances on PostgreSQL) make one chain; a database
 * from before the chain gets its genesis entry and verifies.
 */

/** The migration before this feature's: the schema an older release left. */
const BEFORE_CHAIN = migrationNames[migrationNames.indexOf('018-audit-chain') - 1]!;

let scratch: string;
before(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'audit-chain-'));
  // A preload that makes any network use of the verifier's process fail loudly, and says so on stderr.
  await writeFile(
    path.join(scratch, 'no-network.mjs'),
    [
      "import net from 'node:net'; import dns from 'node:dns';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the template is the preload's own, written out as text
      "const refuse = (what) => { process.stderr.write(`NETWORK ATTEMPT: ${what}\\n`); throw new Error('no network here'); };",
      "net.Socket.prototype.connect = function () { refuse('socket'); };",
      "dns.lookup = () => refuse('dns'); dns.promises.lookup = async () => refuse('dns');",
      "globalThis.fetch = async () => refuse('fetch');",
    ].join('\n'),
  );
});
after(() => rm(scratch, { recursive: true, force: true }));

/** `wallet-admin audit verify` with no settings at all (no DATA_DIR, no DATABASE_URL) and every network path refused. */
function verify(file: string, ...options: string[]) {
  return runCli(['audit', 'verify', file, '--json', ...options], {
    NODE_OPTIONS: `--import ${path.join(scratch, 'no-network.mjs')}`,
  });
}

async function writeLines(name: string, lines: string[]): Promise<string> {
  const file = path.join(scratch, name);
  await writeFile(file, lines.map((line) => `${line}\n`).join(''));
  return file;
}

/** Asserts the verifier failed at the entry of `seq` (id when known) for `reason`. */
function assertFailsAt(result: Awaited<ReturnType<typeof verify>>, seq: number, reason: RegExp, id?: string) {
  assert.equal(result.code, 1, `${result.stdout}${result.stderr}`);
  assert.doesNotMatch(result.stderr, /NETWORK ATTEMPT/);
  const error = result.json().error;
  assert.equal(error.code, 'AUDIT_CHAIN_BROKEN');
  assert.match(error.message, new RegExp(`entry seq ${seq}\\b`), error.message);
  if (id !== undefined) assert.ok(error.message.includes(id), error.message);
  assert.match(error.message, reason);
}

async function openDatabase(storage: Storage): Promise<Kysely<Database>> {
  return storage.databaseUrl
    ? openPostgresDatabase(storage.databaseUrl, createLogger('error'))
    : openSqliteDatabase(path.join(storage.dataDir, SQLITE_FILE_NAME));
}

const event = (fixture: TenantFixture, over: Partial<NewAuditEvent> = {}): NewAuditEvent => ({
  tenantId: fixture.tenant.id,
  channelId: fixture.channel.id,
  adminId: fixture.owner.id,
  action: 'upload',
  folder: 'docs',
  filename: 'a.txt',
  backupTimestamp: null,
  versionId: null,
  at: null,
  result: 'ok',
  code: null,
  sha256: null,
  createdAt: Date.now(),
  operationId: null,
  operation: null,
  ...over,
});

for (const engine of ENGINES) {
  describe(`the audit chain (${engine})`, () => {
    let storage: Storage;
    let svc: TestService;
    let home: TenantFixture;
    let auth: Record<string, string>;
    let files: FilesClient;
    let exported: string[];

    const exportLines = async (query = '') => {
      const answer = await request(svc.baseUrl, `/api/audit/export${query}`, { headers: auth });
      assert.equal(answer.status, 200, answer.body);
      assert.equal(answer.headers['content-type'], 'application/x-ndjson');
      return answer.body.split('\n').filter((line) => line !== '');
    };

    before(async () => {
      storage = await createStorage(engine);
      svc = await startTestService(engine, { storage });
      home = await createTenantFixture(svc.service.store, 'Chain');
      const domain = svc.config.auth.domains[0]!;
      auth = { ...(await signIn(home.ownerWallet, domain)) };
      files = new FilesClient(svc.baseUrl, home.channel.id, auth);
      // Real writes of each kind: uploads, a delete, a backup, an admin created and changed, a refusal.
      assert.equal((await files.put('docs', 'a.txt', 'one')).status, 201);
      assert.equal((await files.put('docs', 'a.txt', 'two')).status, 200);
      assert.equal((await files.put('docs', 'b.txt', 'three')).status, 201);
      assert.equal((await files.backup()).status, 201);
      assert.equal((await files.delete('docs', 'b.txt')).status, 204);
      assert.equal((await files.get('docs', '../x')).status, 400);
      const sub = await request(svc.baseUrl, '/api/admins', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          displayName: 'Sub',
          wallet: newWallet().address,
          permissions: ['files:read', 'audit:read'],
          channels: ['main'],
        }),
      });
      assert.equal(sub.status, 201, sub.body);
      // An event that carries intents, as a held operation's run will write it.
      await svc.service.store.files.appendAudit(event(home, { action: 'restore', intents: await signedIntents(2, 2) }));
      exported = await exportLines();
    });
    after(async () => {
      await svc.close();
      await storage.drop();
    });

    test('real writes make one chain: seq 1, 2, 3…, each prevHash the hash before, the head its last entry', async () => {
      const entries = exported.map((line) => JSON.parse(line));
      assert.ok(entries.length >= 7, exported.join('\n'));
      entries.forEach((entry, i) => {
        assert.equal(entry.seq, i + 1);
        assert.equal(entry.prevHash, i === 0 ? '0'.repeat(64) : entries[i - 1].hash);
        assert.equal(entry.tenantId, home.tenant.id);
      });
      const actions = new Set(entries.map((e) => e.action));
      for (const action of ['upload', 'delete', 'backup', 'admin.create', 'restore']) assert.ok(actions.has(action), action);
      assert.equal(entries.at(-1).intents.approvals.length, 2, 'the export carries the intents');
      const head = await request(svc.baseUrl, '/api/audit/head', { headers: auth });
      assert.equal(head.status, 200, head.body);
      assert.deepEqual(
        { ...head.json(), at: undefined },
        { tenantId: home.tenant.id, seq: entries.length, hash: entries.at(-1).hash, at: undefined },
      );
      assert.match(head.json().at, /^\d{4}-\d\d-\d\dT/);
      // From a cursor: the entries after it.
      assert.deepEqual(await exportLines('?after=3'), exported.slice(3));
      assert.deepEqual(await exportLines(`?after=${entries.length}`), []);
      // Another tenant's chain is its own, from seq 1.
      const other = await createTenantFixture(svc.service.store, 'Other');
      await svc.service.store.files.appendAudit(event(other));
      assert.equal((await svc.service.store.files.auditHead(other.tenant.id)).seq, 1);
    });

    test('an untouched export verifies with the CLI, offline, with no settings, and reaches its published head', async () => {
      const file = await writeLines('untouched.jsonl', exported);
      const head = path.join(scratch, 'head.json');
      await writeFile(head, (await request(svc.baseUrl, '/api/audit/head', { headers: auth })).body);
      const result = await verify(file, '--head-file', head);
      assert.equal(result.code, 0, result.stderr);
      assert.doesNotMatch(result.stderr, /NETWORK ATTEMPT/);
      const summary = result.json();
      assert.equal(summary.ok, true);
      assert.equal(summary.entries, exported.length);
      assert.equal(summary.intents.entries, 1);
      assert.equal(summary.intents.verifiedSignatures, 2);
      // The text summary, for people.
      const text = await runCli(['audit', 'verify', '--file', file], {});
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, new RegExp(`Verified ${exported.length} entries`));
    });

    test('the preload that refuses the network does refuse it: the no-network check can fail', async () => {
      const probe = path.join(scratch, 'probe.mjs');
      await writeFile(probe, "import net from 'node:net'; try { net.connect(1, '127.0.0.1'); } catch {}");
      const { spawnSync } = await import('node:child_process');
      const run = spawnSync(process.execPath, ['--import', path.join(scratch, 'no-network.mjs'), probe], { encoding: 'utf8' });
      assert.match(run.stderr, /NETWORK ATTEMPT: socket/);
    });

    test('tampering with the file: edit, delete, insert, reorder, truncate past a published head — each named at its first failing entry', async () => {
      const entries = exported.map((line) => JSON.parse(line));
      const at = (seq: number) => entries[seq - 1];

      const edited = [...exported];
      edited[2] = JSON.stringify({ ...at(3), filename: 'other.txt' });
      assertFailsAt(await verify(await writeLines('edit.jsonl', edited)), 3, /edited/, at(3).id);

      const deleted = exported.filter((_, i) => i !== 3);
      assertFailsAt(await verify(await writeLines('delete.jsonl', deleted)), 5, /missing, inserted or out of order/, at(5).id);

      // An insertion that even renumbers what follows and recomputes its own hash is caught by the next prevHash.
      const forged = { ...at(3), id: 'aud_forged', filename: 'forged.txt' };
      const inserted = [...exported.slice(0, 3), JSON.stringify(forged), ...exported.slice(3)];
      assertFailsAt(await verify(await writeLines('insert.jsonl', inserted)), 3, /missing, inserted or out of order/, 'aud_forged');

      const reordered = [...exported];
      [reordered[1], reordered[2]] = [reordered[2]!, reordered[1]!];
      assertFailsAt(await verify(await writeLines('reorder.jsonl', reordered)), 3, /missing, inserted or out of order/, at(3).id);

      // Truncated: verifies as a chain, but not against the head published before.
      const truncated = exported.slice(0, -2);
      const alone = await verify(await writeLines('truncated.jsonl', truncated));
      assert.equal(alone.code, 0, 'a prefix is a valid chain: only a published head tells');
      const head = `${entries.length}`;
      const cut = await verify(await writeLines('truncated.jsonl', truncated), '--head', entries.at(-1).hash, '--head-seq', head);
      assertFailsAt(cut, entries.length - 2, /before the published head/);
    });

    test('tampering in the database: an edited row, a deleted row, an inserted row, two rows swapped → the export fails where it was done', async () => {
      const db = await openDatabase(storage);
      try {
        const entries = exported.map((line) => JSON.parse(line));
        const [, second, third, fourth] = entries;
        // Edit: the row's content no longer hashes to its stored hash.
        await db.updateTable('audit_events').set({ result: 'refused' }).where('id', '=', second.id).execute();
        assertFailsAt(await verify(await writeLines('db-edit.jsonl', await exportLines())), 2, /edited/, second.id);
        await db.updateTable('audit_events').set({ result: second.result }).where('id', '=', second.id).execute();
        assert.equal((await verify(await writeLines('db-restored.jsonl', await exportLines()))).code, 0, 'put back, it verifies again');

        // Swap two rows' places in the chain (their seq and hashes): the order is the chain's, and it breaks.
        const park = (row: typeof third) => db.updateTable('audit_events').set({ chain_seq: -1 }).where('id', '=', row.id).execute();
        const place = (row: typeof third, at: typeof third) =>
          db
            .updateTable('audit_events')
            .set({ chain_seq: at.seq, prev_hash: at.prevHash, entry_hash: at.hash })
            .where('id', '=', row.id)
            .execute();
        await park(third);
        await place(fourth, third);
        await place(third, fourth);
        assertFailsAt(await verify(await writeLines('db-swap.jsonl', await exportLines())), 3, /edited/, fourth.id);
        await park(third);
        await place(fourth, fourth);
        await place(third, third);

        // Insert: a row at a new seq between others is no place the chain leaves room for.
        const row = await db.selectFrom('audit_events').selectAll().where('id', '=', third.id).executeTakeFirstOrThrow();
        await db
          .updateTable('audit_events')
          .set((eb) => ({ chain_seq: eb('chain_seq', '+', 1000) }))
          .where('tenant_id', '=', home.tenant.id)
          .where('chain_seq', '>=', 3)
          .execute();
        await db
          .insertInto('audit_events')
          .values({ ...row, id: 'aud_inserted', chain_seq: 3 })
          .execute();
        await db
          .updateTable('audit_events')
          .set((eb) => ({ chain_seq: eb('chain_seq', '-', 999) }))
          .where('tenant_id', '=', home.tenant.id)
          .where('chain_seq', '>=', 1003)
          .execute();
        assertFailsAt(await verify(await writeLines('db-insert.jsonl', await exportLines())), 3, /edited/, 'aud_inserted');
        await db.deleteFrom('audit_events').where('id', '=', 'aud_inserted').execute();
        // In two steps, so that no row passes through a seq another still holds (the index is unique).
        await db
          .updateTable('audit_events')
          .set((eb) => ({ chain_seq: eb('chain_seq', '+', 1000) }))
          .where('tenant_id', '=', home.tenant.id)
          .where('chain_seq', '>=', 4)
          .execute();
        await db
          .updateTable('audit_events')
          .set((eb) => ({ chain_seq: eb('chain_seq', '-', 1001) }))
          .where('tenant_id', '=', home.tenant.id)
          .where('chain_seq', '>=', 1004)
          .execute();
        assert.equal((await verify(await writeLines('db-restored2.jsonl', await exportLines()))).code, 0, 'put back, it verifies again');

        // Delete: the gap in seq names the entry after it.
        await db.deleteFrom('audit_events').where('id', '=', third.id).execute();
        assertFailsAt(
          await verify(await writeLines('db-delete.jsonl', await exportLines())),
          4,
          /missing, inserted or out of order/,
          fourth.id,
        );
      } finally {
        await db.destroy();
      }
    });

    test('only an owner, who sees the whole log, may export it or read its head: a sub-admin with audit:read is refused', async () => {
      const sub = newWallet();
      const created = await request(svc.baseUrl, '/api/admins', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ displayName: 'Reader', wallet: sub.address, permissions: ['audit:read'], channels: ['main'] }),
      });
      assert.equal(created.status, 201, created.body);
      const headers = await signIn(sub, svc.config.auth.domains[0]!);
      assert.equal((await request(svc.baseUrl, '/api/audit', { headers })).status, 200, 'it reads its part of the log');
      assertProblem(await request(svc.baseUrl, '/api/audit/export', { headers }), 403, 'PERMISSION_DENIED');
      assertProblem(await request(svc.baseUrl, '/api/audit/head', { headers }), 403, 'PERMISSION_DENIED');
      assertProblem(await request(svc.baseUrl, '/api/audit/export?after=-1', { headers: auth }), 400, 'VALIDATION_FAILED');
    });
  });

  describe(`appends that race (${engine})`, () => {
    let storage: Storage;
    let services: TestService[];
    let home: TenantFixture;

    before(async () => {
      storage = await createStorage(engine);
      // Two instances on one database where the engine is shared (PostgreSQL); SQLite has one writer process.
      services = [await startTestService(engine, { storage })];
      if (engine === 'postgres') services.push(await startTestService(engine, { storage }));
      home = await createTenantFixture(services[0]!.service.store, 'Race');
    });
    after(async () => {
      for (const svc of services) await svc.close();
      await storage.drop();
    });

    test('30 appends at once, across the instances, make one contiguous chain with no fork, and it verifies', async () => {
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          services[i % services.length]!.service.store.files.appendAudit(event(home, { filename: `f${i}.txt` })),
        ),
      );
      const head = await services[0]!.service.store.files.auditHead(home.tenant.id);
      assert.equal(head.seq, 30);
      const chained = await services[0]!.service.store.files.chainedAudit(home.tenant.id, 0, 100);
      assert.deepEqual(
        chained.map((c) => c.seq),
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
      for (let i = 1; i < chained.length; i++) assert.equal(chained[i]!.prevHash, chained[i - 1]!.hash, `seq ${i + 1} follows seq ${i}`);
      assert.equal(chained.at(-1)!.hash, head.hash);
      assert.deepEqual(new Set(chained.map((c) => c.event.filename)).size, 30);
    });

    test('32 uploads at once into one tenant and one channel, each to a file of its own, across the instances, leave one contiguous chain that recomputes', async () => {
      const start = await services[0]!.service.store.files.auditHead(home.tenant.id);
      const clients = await Promise.all(
        services.map(
          async (svc) =>
            new FilesClient(svc.baseUrl, home.channel.id, { ...(await signIn(home.ownerWallet, svc.config.auth.domains[0]!)) }),
        ),
      );
      const answers = await Promise.all(
        Array.from({ length: 32 }, (_, i) => clients[i % clients.length]!.put('hot', `w-${i}.bin`, `bytes ${i}`)),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 201),
      );
      const head = await services[0]!.service.store.files.auditHead(home.tenant.id);
      const chained = await services[0]!.service.store.files.chainedAudit(home.tenant.id, 0, 1000);
      assert.deepEqual(
        chained.map((c) => c.seq),
        Array.from({ length: head.seq }, (_, i) => i + 1),
        'seq 1, 2, 3… with no gap',
      );
      for (const [i, c] of chained.entries()) {
        assert.equal(c.prevHash, i === 0 ? ZERO_HASH : chained[i - 1]!.hash, `seq ${c.seq} follows seq ${c.seq - 1}`);
        assert.equal(chainEntry(c.event, c.seq, c.prevHash).hash, c.hash, `seq ${c.seq} recomputes`);
      }
      assert.equal(chained.at(-1)!.hash, head.hash);
      const uploads = chained.filter((c) => c.seq > start.seq && c.event.folder === 'hot' && c.event.action === 'upload');
      assert.equal(new Set(uploads.map((c) => c.event.filename)).size, 32, 'every upload has its entry');
    });
  });

  describe(`a log from before the chain (${engine})`, () => {
    let storage: Storage;
    let svc: TestService;

    after(async () => {
      await svc?.close();
      await storage?.drop();
    });

    test('the upgrade starts each tenant chain with a genesis entry, chains the older entries after it, and the export verifies', async () => {
      storage = await createStorage(engine);
      const older = await startTestService(engine, { storage });
      const home = await createTenantFixture(older.service.store, 'Older');
      const domain = older.config.auth.domains[0]!;
      let files = new FilesClient(older.baseUrl, home.channel.id, { ...(await signIn(home.ownerWallet, domain)) });
      for (const name of ['x.txt', 'y.txt', 'z.txt']) assert.equal((await files.put('docs', name, name)).status, 201);
      await older.close();
      // Back to the schema of the release before the chain: the events as it wrote them, no chain columns.
      const db = await openDatabase(storage);
      try {
        const back = await new Migrator({ db, provider: migrationProvider }).migrateTo(BEFORE_CHAIN);
        if (back.error) throw back.error;
      } finally {
        await db.destroy();
      }

      svc = await startTestService(engine, { storage });
      const auth = { ...(await signIn(home.ownerWallet, svc.config.auth.domains[0]!)) };
      files = new FilesClient(svc.baseUrl, home.channel.id, auth);
      const afterPut = await files.put('docs', 'after.txt', 'after');
      assert.equal(afterPut.status, 201, afterPut.body);
      const answer = await request(svc.baseUrl, '/api/audit/export', { headers: auth });
      const entries = answer.body
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      assert.equal(entries.length, 5, answer.body);
      const [genesis, ...rest] = entries;
      assert.equal(genesis.action, 'audit.chain-start');
      assert.equal(genesis.seq, 1);
      assert.deepEqual(
        { ...genesis.change.after, lastPreChainAt: undefined },
        {
          preChainEntries: 3,
          firstPreChainSeq: 2,
          lastPreChainSeq: 4,
          lastPreChainId: rest[2].id,
          lastPreChainAt: undefined,
        },
      );
      assert.deepEqual(
        rest.map((e) => e.filename),
        ['x.txt', 'y.txt', 'z.txt', 'after.txt'],
      );
      const result = await verify(await writeLines(`upgraded-${engine}.jsonl`, answer.body.split('\n').filter(Boolean)));
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(result.json().preChain?.entries, 3);
      // The tenant log shows the genesis entry, as the owner's.
      const log = await request(svc.baseUrl, '/api/audit?action=audit.chain-start', { headers: auth });
      assert.equal(log.json().items.length, 1, log.body);
    });
  });
}
