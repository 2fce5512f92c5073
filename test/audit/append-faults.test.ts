import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { verifyExport } from '../../src/audit-chain/verify-export.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openPostgresDatabase, openSqliteDatabase, SQLITE_FILE_NAME } from '../../src/metadata/database.ts';
import type { Database } from '../../src/metadata/schema.ts';
import type { Channel } from '../../src/model/channels.ts';
import { formatBackupTimestamp } from '../../src/time/backup-timestamp.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES, type Engine } from '../helpers/backends.ts';
import { nextSecond, storedKeys } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { noteCredential } from '../helpers/log-secrets.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, signTypedData } from '../helpers/wallets.ts';

/**
 * Issue 34, "one truthful history": every change appends its audit entry in its own transaction.
 * Here real faults of the database, installed with SQL beside the running service, fail that
 * append — its INSERT into audit_events, its UPDATE of audit_heads — or the COMMIT after it, on
 * both engines. For every kind of change: the answer is 503 problem+json with outcome
 * "unchanged"; every row of the database (but the sign-ins' nonces) and every stored blob is as it
 * was, as is what the API shows of the change's target; the tenant's chain has no new entry and
 * its export verifies; and the same request succeeds once the fault is dropped, so the fault, and
 * nothing else, failed it.
 */

const DOMAIN = 'faults.example.com';
/** Backups the cases make at seconds of their own, far from now: the one-per-second rule never meets the API's. */
const PAST_SECOND = Date.UTC(2021, 0, 1);
const RAISE = 'fault_raise';

type Sql = (afterSeq: number) => string[];

/**
 * A fault of the database, per engine: the statements that install it, failing every append that
 * takes the tenant's chain past `afterSeq`, and those that drop it.
 */
interface Fault {
  name: string;
  /** What the answer's detail says failed: the append (auditNotRecorded) or the COMMIT (commitRefused). */
  detail: RegExp;
  install: Record<Engine, Sql>;
  drop: Record<Engine, string[]>;
}

const FAULTS: Fault[] = [
  {
    name: "the append's INSERT into audit_events fails",
    detail: /audit log could not record this change/,
    install: {
      sqlite: (seq) => [
        `create trigger fault_append_insert before insert on audit_events when new.chain_seq > ${seq}
         begin select raise(abort, 'injected fault: insert into audit_events'); end`,
      ],
      postgres: (seq) => [
        `create trigger fault_append_insert before insert on audit_events for each row
         when (new.chain_seq > ${seq}) execute function ${RAISE}()`,
      ],
    },
    drop: {
      sqlite: ['drop trigger if exists fault_append_insert'],
      postgres: ['drop trigger if exists fault_append_insert on audit_events'],
    },
  },
  {
    name: "the append's UPDATE of audit_heads fails",
    detail: /audit log could not record this change/,
    install: {
      sqlite: (seq) => [
        `create trigger fault_head_update before update on audit_heads when new.seq > ${seq}
         begin select raise(abort, 'injected fault: update of audit_heads'); end`,
      ],
      postgres: (seq) => [
        `create trigger fault_head_update before update on audit_heads for each row
         when (new.seq > ${seq}) execute function ${RAISE}()`,
      ],
    },
    drop: {
      sqlite: ['drop trigger if exists fault_head_update'],
      postgres: ['drop trigger if exists fault_head_update on audit_heads'],
    },
  },
  {
    // Every statement of the transaction succeeds; the database refuses only its COMMIT.
    name: 'the COMMIT fails',
    detail: /refused to commit this change/,
    install: {
      // A deferred foreign key is checked at COMMIT (the service's connection has foreign_keys on);
      // SQLite then keeps the transaction open, and the service must roll it back.
      sqlite: (seq) => [
        'create table fault_parent (id text primary key)',
        'create table fault_child (parent text references fault_parent (id) deferrable initially deferred)',
        `create trigger fault_commit after insert on audit_events when new.chain_seq > ${seq}
         begin insert into fault_child values ('missing'); end`,
      ],
      postgres: (seq) => [
        `create constraint trigger fault_commit after insert on audit_events deferrable initially deferred for each row
         when (new.chain_seq > ${seq}) execute function ${RAISE}()`,
      ],
    },
    drop: {
      sqlite: ['drop trigger if exists fault_commit', 'drop table if exists fault_child', 'drop table if exists fault_parent'],
      postgres: ['drop trigger if exists fault_commit on audit_events'],
    },
  },
];

/** One request under test, prepared afresh for each fault: sent once with the fault, once without. */
interface Attempt {
  send(): Promise<HttpResponse>;
  /** Its status once the fault is gone. */
  succeeds: number;
  /** What the API shows of what the change acts on: the same after the failure, different after the success. */
  view(): Promise<unknown>;
}

interface Case {
  name: string;
  prepare(): Promise<Attempt>;
}

/** The state a failed change must leave exactly as it was: every row of every table, and every stored blob. */
type Snapshot = Record<string, string[]>;

for (const engine of ENGINES) {
  describe(`audit appends and COMMITs refused by the database (${engine}): 503, nothing changed, the chain unbroken`, () => {
    let storage: Storage;
    let svc: TestService;
    let db: Kysely<Database>;
    let fixture: TenantFixture;
    let auth: Record<string, string>;
    /** The channel of the folder restore (its safety backups), and that of the held channel restore. */
    let scoped: Channel;
    let held: Channel;
    let restoreBackup: string;
    let scopedBackup: string;
    let heldBackup: string;
    let lockedBackup: string;
    let pastSeconds = 0;
    let unique = 0;

    const send = (method: string, url: string, body?: unknown) =>
      request(svc.baseUrl, url, {
        method,
        headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const put = (url: string, bytes: string) =>
      request(svc.baseUrl, url, { method: 'PUT', headers: { ...auth, 'Content-Type': 'text/plain' }, body: bytes });
    /** A read's status, ETag and body: what a client sees. */
    const read = async (url: string): Promise<{ status: number; etag: string | undefined; body: string }> => {
      const answer = await send('GET', url);
      // Not found: a problem, whose requestId is the request's own, so only the status is compared.
      if (answer.status === 404) return { status: 404, etag: undefined, body: '' };
      assert.equal(answer.status, 200, `${url}: ${answer.body}`);
      return { status: answer.status, etag: answer.headers.etag, body: answer.body };
    };
    const fileUrl = (channel: Channel, folder: string, filename: string) =>
      `/api/channels/${channel.id}/folders/${folder}/files/${filename}`;
    /** A file as a client sees it: its bytes and ETag, and its kept versions. */
    const fileView = async (channel: Channel, folder: string, filename: string) => ({
      file: await read(fileUrl(channel, folder, filename)),
      versions: await read(`${fileUrl(channel, folder, filename)}/versions?limit=1000`),
    });
    const backupsView = (channel: Channel) => read(`/api/channels/${channel.id}/backups?limit=1000`);
    const expectStatus = async (answer: Promise<HttpResponse>, status: number) => {
      const done = await answer;
      assert.equal(done.status, status, done.body);
      return done;
    };
    /** A backup of `channel` at a second of its own, through the backup service (the cases' setup, not under test). */
    const pastBackup = async (channel: Channel) => {
      const second = PAST_SECOND + 1000 * pastSeconds++;
      return (await svc.service.files.backups.create(channel, { adminId: fixture.owner.id }, 'api', second)).timestamp;
    };
    const member = (options: Parameters<typeof createMemberAdmin>[2] = {}) =>
      createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], ...options });

    const head = async () => {
      const answer = await send('GET', '/api/audit/head');
      assert.equal(answer.status, 200, answer.body);
      return answer.json() as { seq: number; hash: string; at: string | null };
    };
    const assertChainVerifies = async () => {
      const answer = await send('GET', '/api/audit/export');
      assert.equal(answer.status, 200, answer.body);
      const summary = await verifyExport(answer.body.split('\n').filter((line) => line !== ''));
      assert.equal(summary.ok, true, JSON.stringify(summary.failure));
    };

    async function snapshot(): Promise<Snapshot> {
      const tables =
        engine === 'sqlite'
          ? await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)
          : await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
      const state: Snapshot = {};
      for (const { name } of tables.rows) {
        // A signed request claims its message's nonce whatever it asks: that row is the sign-in's, not the change's.
        if (name === 'auth_nonces' || name.startsWith('fault_')) continue;
        const rows = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(db);
        state[name] = rows.rows.map((row) => JSON.stringify(row)).sort();
      }
      state['stored blobs'] = await storedKeys(svc.config, 'objects');
      return state;
    }

    async function run(statements: string[]): Promise<void> {
      for (const statement of statements) await sql.raw(statement).execute(db);
    }

    before(async () => {
      storage = await createStorage(engine);
      svc = await startTestService(engine, { storage, env: { AUTH_DOMAINS: DOMAIN } });
      // The test's own connection to the service's database, beside the service's.
      db =
        engine === 'sqlite'
          ? await openSqliteDatabase(path.join(storage.dataDir, SQLITE_FILE_NAME))
          : await openPostgresDatabase(storage.databaseUrl!, createLogger('error'));
      if (engine === 'postgres') {
        await run([
          `create function ${RAISE}() returns trigger language plpgsql as $$
           begin raise exception 'injected fault: % on %', tg_name, tg_table_name; end $$`,
        ]);
      }
      const store = svc.service.store;
      fixture = await createTenantFixture(store, 'Faults');
      auth = { ...(await signIn(fixture.ownerWallet, DOMAIN)) };
      scoped = await store.createChannel({ tenantId: fixture.tenant.id, name: 'scoped' });
      held = await store.createChannel({ tenantId: fixture.tenant.id, name: 'held' });
      for (const channel of [scoped, held]) await store.linkChannel(channel.id, fixture.owner.id);
      // A second admin who may approve, so that a channel restore can be held for two approvals.
      await member({ permissions: ['files:read', 'files:restore', 'admins:manage'], channels: [fixture.channel, held] });
      await expectStatus(
        send('PUT', `/api/channels/${held.id}/policy`, {
          rules: [{ operation: 'channel.restore', approvals: 2, permission: 'files:restore' }],
        }),
        200,
      );

      await expectStatus(put(fileUrl(fixture.channel, 'docs', 'restored.txt'), 'as backed up'), 201);
      restoreBackup = await pastBackup(fixture.channel);
      lockedBackup = await pastBackup(fixture.channel);
      await expectStatus(put(fileUrl(scoped, 'docs', 'scoped.txt'), 'as backed up'), 201);
      scopedBackup = await pastBackup(scoped);
      await expectStatus(put(fileUrl(held, 'docs', 'held.txt'), 'as backed up'), 201);
      heldBackup = await pastBackup(held);
      await expectStatus(put(fileUrl(held, 'docs', 'held.txt'), 'changed since'), 200);
    });
    after(async () => {
      await db?.destroy();
      await svc?.close();
      await storage?.drop();
    });

    const main = () => fixture.channel;
    /** The tenant's policy, set aside the API: a wallet.add rule (2 approvals), or none. */
    async function walletAddPolicy(held: boolean): Promise<void> {
      const store = svc.service.store;
      const rules = held ? [{ operation: 'wallet.add' as const, approvals: 2, permission: 'admins:manage' }] : [];
      const current = await store.getPolicy(fixture.tenant.id, null);
      if (JSON.stringify(current.rules) !== JSON.stringify(rules))
        await store.putPolicy(fixture.tenant.id, null, rules, fixture.owner.id, Date.now());
    }
    const CASES: Case[] = [
      {
        name: 'upload of a new file',
        async prepare() {
          const url = fileUrl(main(), 'docs', `new-${++unique}.txt`);
          return { send: () => put(url, 'new bytes'), succeeds: 201, view: () => fileView(main(), 'docs', `new-${unique}.txt`) };
        },
      },
      {
        name: 'upload replacing a file',
        async prepare() {
          await put(fileUrl(main(), 'docs', 'replaced.txt'), `before ${++unique}`);
          return {
            send: () => put(fileUrl(main(), 'docs', 'replaced.txt'), `after ${unique}`),
            succeeds: 200,
            view: () => fileView(main(), 'docs', 'replaced.txt'),
          };
        },
      },
      {
        name: 'delete of a file',
        async prepare() {
          const name = `deleted-${++unique}.txt`;
          await expectStatus(put(fileUrl(main(), 'docs', name), 'to delete'), 201);
          return { send: () => send('DELETE', fileUrl(main(), 'docs', name)), succeeds: 204, view: () => fileView(main(), 'docs', name) };
        },
      },
      {
        name: "the contract's single-file restore",
        async prepare() {
          await expectStatus(put(fileUrl(main(), 'docs', 'restored.txt'), `changed ${++unique}`), 200);
          return {
            send: () => send('POST', `${fileUrl(main(), 'docs', 'restored.txt')}/restore?backupTimestamp=${restoreBackup}`),
            succeeds: 200,
            view: () => fileView(main(), 'docs', 'restored.txt'),
          };
        },
      },
      {
        name: 'backup create',
        async prepare() {
          // Backups are one per second: the retry must have a second no earlier backup took.
          while ((await backupsView(main())).body.includes(`"${formatBackupTimestamp(Date.now())}"`)) await nextSecond();
          return { send: () => send('POST', `/api/channels/${main().id}/backups`), succeeds: 201, view: () => backupsView(main()) };
        },
      },
      {
        name: 'backup delete',
        async prepare() {
          const timestamp = await pastBackup(main());
          return {
            send: () => send('DELETE', `/api/channels/${main().id}/backups/${timestamp}`),
            succeeds: 204,
            view: () => backupsView(main()),
          };
        },
      },
      {
        name: "change of a backup's lock (legal hold)",
        async prepare() {
          const backups = JSON.parse((await backupsView(main())).body).items as {
            timestamp: string;
            lock: { legalHold: boolean } | null;
          }[];
          const hold = backups.find((b) => b.timestamp === lockedBackup)!.lock?.legalHold !== true;
          return {
            send: () => send('PUT', `/api/channels/${main().id}/backups/${lockedBackup}/lock`, { legalHold: hold }),
            succeeds: 200,
            view: () => backupsView(main()),
          };
        },
      },
      {
        name: 'admin create',
        async prepare() {
          const body = { displayName: `New ${++unique}`, wallet: newWallet().address, permissions: ['files:read'], channels: [main().id] };
          return { send: () => send('POST', '/api/admins', body), succeeds: 201, view: () => read('/api/admins?limit=1000') };
        },
      },
      {
        name: 'admin update (its permissions)',
        async prepare() {
          const { admin } = await member({ channels: [main()] });
          return {
            send: () => send('PATCH', `/api/admins/${admin.id}`, { permissions: ['files:read', 'files:write'] }),
            succeeds: 200,
            view: () => read(`/api/admins/${admin.id}`),
          };
        },
      },
      {
        name: 'admin remove',
        async prepare() {
          const { admin } = await member({ channels: [main()] });
          return { send: () => send('DELETE', `/api/admins/${admin.id}`), succeeds: 204, view: () => read(`/api/admins/${admin.id}`) };
        },
      },
      {
        name: "removal of an admin's wallet",
        async prepare() {
          const { admin } = await member();
          const second = newWallet().address;
          await svc.service.store.addAdminWallet(admin.id, second);
          return {
            send: () => send('DELETE', `/api/admins/${admin.id}/wallets/${second}`),
            succeeds: 204,
            view: () => read(`/api/admins/${admin.id}/wallets`),
          };
        },
      },
      {
        // The challenge is used up in the transaction that adds the wallet: a failed add leaves the same proof good.
        name: 'wallet add (a signed challenge)',
        async prepare() {
          await walletAddPolicy(false);
          const wallet = newWallet();
          const owner = fixture.owner.id;
          const challenge = await send('POST', `/api/admins/${owner}/wallets/challenge`, { wallet: wallet.address });
          assert.equal(challenge.status, 200, challenge.body);
          const { typedData } = challenge.json();
          const signature = await signTypedData(wallet, typedData);
          return {
            send: () => send('POST', `/api/admins/${owner}/wallets`, { typedData, signature }),
            succeeds: 201,
            view: () => read(`/api/admins/${owner}/wallets`),
          };
        },
      },
      {
        // The challenge is used up in the transaction that adds the wallet: a failed add leaves the same proof good.
        name: 'wallet add held by the policy: the proof is used up by the proposal, in its transaction',
        async prepare() {
          await walletAddPolicy(true);
          const wallet = newWallet();
          const owner = fixture.owner.id;
          const challenge = await send('POST', `/api/admins/${owner}/wallets/challenge`, { wallet: wallet.address });
          assert.equal(challenge.status, 200, challenge.body);
          const { typedData } = challenge.json();
          const signature = await signTypedData(wallet, typedData);
          return {
            send: () => send('POST', `/api/admins/${owner}/wallets`, { typedData, signature }),
            succeeds: 202,
            view: async () => ({ wallets: await read(`/api/admins/${owner}/wallets`), proposals: await read('/api/proposals?limit=1000') }),
          };
        },
      },
      {
        name: 'invitation create',
        async prepare() {
          return {
            send: async () => {
              const answer = await send('POST', '/api/invitations', { permissions: ['files:read'], expiresIn: 3600 });
              if (answer.status === 201) noteCredential(answer.json().token);
              return answer;
            },
            succeeds: 201,
            view: () => read('/api/invitations?limit=1000'),
          };
        },
      },
      {
        name: 'invitation revoke',
        async prepare() {
          const invited = await expectStatus(send('POST', '/api/invitations', { permissions: ['files:read'], expiresIn: 3600 }), 201);
          noteCredential(invited.json().token);
          return {
            send: () => send('DELETE', `/api/invitations/${invited.json().id}`),
            succeeds: 204,
            view: () => read('/api/invitations?limit=1000'),
          };
        },
      },
      {
        name: 'channel create',
        async prepare() {
          const name = `made ${++unique}`;
          return { send: () => send('POST', '/api/channels', { name }), succeeds: 201, view: () => read('/api/channels?limit=1000') };
        },
      },
      {
        name: 'channel rename',
        async prepare() {
          const channel = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: `to rename ${++unique}` });
          await svc.service.store.linkChannel(channel.id, fixture.owner.id);
          return {
            send: () => send('PATCH', `/api/channels/${channel.id}`, { name: `renamed ${unique}` }),
            succeeds: 200,
            view: () => read('/api/channels?limit=1000'),
          };
        },
      },
      {
        name: 'link of an admin to a channel',
        async prepare() {
          const { admin } = await member();
          return {
            send: () => send('PUT', `/api/channels/${main().id}/admins/${admin.id}`),
            succeeds: 204,
            view: () => read(`/api/channels/${main().id}/admins`),
          };
        },
      },
      {
        name: 'unlink of an admin from a channel',
        async prepare() {
          const { admin } = await member({ channels: [main()] });
          return {
            send: () => send('DELETE', `/api/channels/${main().id}/admins/${admin.id}`),
            succeeds: 204,
            view: () => read(`/api/channels/${main().id}/admins`),
          };
        },
      },
      {
        name: "change of the tenant's policy",
        async prepare() {
          // A policy with rules guards its own change (a proposal): each round starts from none, set aside the API.
          const policy = await svc.service.store.getPolicy(fixture.tenant.id, null);
          if (policy.rules.length > 0) await svc.service.store.putPolicy(fixture.tenant.id, null, [], fixture.owner.id, Date.now());
          const rules = [{ operation: 'wallet.add', approvals: 2, permission: 'admins:manage' }];
          return { send: () => send('PUT', '/api/policies', { rules }), succeeds: 200, view: () => read('/api/policies') };
        },
      },
      {
        name: 'proposal of a held operation (a channel restore the policy holds)',
        async prepare() {
          return {
            send: () => send('POST', `/api/channels/${held.id}/restore?backupTimestamp=${heldBackup}`),
            succeeds: 202,
            view: async () => ({ proposals: await read('/api/proposals?limit=1000'), file: await fileView(held, 'docs', 'held.txt') }),
          };
        },
      },
    ];

    if (engine === 'sqlite') {
      test('the COMMIT fault of SQLite: its statement goes through, the COMMIT fails, and the transaction is rolled back', async () => {
        // Through the same driver stack as the service's (database.ts), on the test's own connection.
        const commitFault = FAULTS.find((fault) => fault.name === 'the COMMIT fails')!;
        await run(commitFault.install.sqlite(0));
        try {
          let statementDone = false;
          await assert.rejects(
            db.transaction().execute(async (trx) => {
              await sql`insert into fault_child values ('missing')`.execute(trx);
              statementDone = true;
            }),
            (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY',
          );
          assert.ok(statementDone, 'the insert itself went through: a deferred key is checked at COMMIT');
          const left = await sql<{ rows: number }>`select count(*) as rows from fault_child`.execute(db);
          assert.equal(Number(left.rows[0]!.rows), 0, 'rolled back');
          // Out of the failed transaction: the connection begins the next one (SQLite would refuse a nested BEGIN).
          await db.transaction().execute((trx) => sql`select 1`.execute(trx));
        } finally {
          await run(commitFault.drop.sqlite);
        }
      });
    }

    for (const fault of FAULTS) {
      for (const kase of CASES) {
        test(`${kase.name}: ${fault.name}`, async () => {
          const attempt = await kase.prepare();
          const view = await attempt.view();
          const state = await snapshot();
          const chain = await head();
          await run(fault.install[engine](chain.seq));
          let failed: HttpResponse;
          try {
            failed = await attempt.send();
          } finally {
            await run(fault.drop[engine]);
          }
          assertProblem(failed, 503, 'SERVICE_UNAVAILABLE');
          assert.equal(failed.json().outcome, 'unchanged', failed.body);
          assert.match(failed.json().detail, fault.detail);
          assert.deepEqual(await attempt.view(), view, 'what the API shows is as it was');
          assert.deepEqual(await snapshot(), state, 'every row and blob is as it was');
          assert.deepEqual(await head(), chain, 'the chain has no new entry');
          await assertChainVerifies();

          const retried = await attempt.send();
          assert.equal(retried.status, attempt.succeeds, retried.body);
          assert.notDeepEqual(await attempt.view(), view, 'the change is made once the fault is gone');
          assert.ok((await head()).seq > chain.seq, 'and its entry appended');
        });
      }

      test(`folder restore of one changed file, the file's step failed: ${fault.name}`, async () => {
        await expectStatus(put(fileUrl(scoped, 'docs', 'scoped.txt'), `changed ${++unique}`), 200);
        const restore = () => send('POST', `/api/channels/${scoped.id}/folders/docs/restore?backupTimestamp=${scopedBackup}`);
        // The file and the versions its writes kept (a backup, the safety backup too, is listed among them as an instant).
        const scopedFile = async () => {
          const { file, versions } = await fileView(scoped, 'docs', 'scoped.txt');
          return { file, kept: JSON.parse(versions.body).items.filter((v: { kind: string }) => v.kind !== 'backup') };
        };
        const view = await scopedFile();
        const backups = JSON.parse((await backupsView(scoped)).body).items as { timestamp: string }[];
        const state = await snapshot();
        const chain = await head();
        // The first append (the safety backup's) goes through; the file's step is the one the fault fails.
        await run(fault.install[engine](chain.seq + 1));
        let failed: HttpResponse;
        try {
          failed = await restore();
        } finally {
          await run(fault.drop[engine]);
        }
        // The failing step's code; the answer says the restore stopped partway, after its safety backup, with no file done.
        assertProblem(failed, 503, 'SERVICE_UNAVAILABLE');
        assert.equal(failed.json().outcome, 'partial', failed.body);
        assert.equal(failed.json().counts.replaced + failed.json().counts.created + failed.json().counts.deleted, 0);
        assert.match(failed.json().detail, /stopped there, after 0 of its files \(the safety backup \d{8}_\d{6} undoes them/);
        assert.deepEqual(await scopedFile(), view, 'the file is as it was');
        // Beside the safety backup's row and entry (checked below), every row and blob is as it was: the step's bytes are gone.
        const besides = ({ backups: _b, audit_events: _e, audit_heads: _h, ...rest }: Snapshot) => rest;
        assert.deepEqual(besides(await snapshot()), besides(state), 'every other row and blob is as it was');
        const now = JSON.parse((await backupsView(scoped)).body).items as { timestamp: string; origin: string }[];
        const taken = now.filter((b) => !backups.some((old) => old.timestamp === b.timestamp));
        assert.deepEqual(
          taken.map((b) => b.origin),
          ['restore'],
          'only the safety backup, taken before the step, was made',
        );
        const entries = (await send('GET', `/api/audit/export?after=${chain.seq}`)).body.split('\n').filter((l) => l !== '');
        assert.deepEqual(
          entries.map((line) => JSON.parse(line).action),
          ['backup'],
          "the chain's one new entry is the safety backup's",
        );
        await assertChainVerifies();

        const retried = await restore();
        assert.equal(retried.status, 200, retried.body);
        assert.deepEqual(retried.json().changes, [{ folder: 'docs', filename: 'scoped.txt', action: 'replace' }]);
        assert.equal((await read(fileUrl(scoped, 'docs', 'scoped.txt'))).body, 'as backed up');
      });
    }

    test('the chain, after every fault, verifies whole', assertChainVerifies);
  });
}
