import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, fromViemAccount, ProblemError, type WalletAdminClient } from '../../src/client/index.ts';
import type { RestoreService } from '../../src/files/restore-service.ts';
import { ScopeRestoreService } from '../../src/files/scope-restore-service.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

type Tree = Record<string, string>; // "folder/filename" → content

interface AuditItem {
  action: string;
  folder: string | null;
  filename: string | null;
  backupTimestamp: string | null;
  result: string;
  code: string | null;
  operationId: string | null;
  operation: {
    scope: string;
    at: string | null;
    delete: boolean;
    dryRun: boolean;
    safetyBackup: string | null;
    counts: Record<string, number>;
  } | null;
}

for (const setup of FILE_SETUPS) {
  describe(`restore of a folder or a whole channel (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let files: FilesClient;
    let client: WalletAdminClient;

    /** POST …[/folders/{folder}]/restore{query} as the raw HTTP request. */
    const restoreScope = (
      folder: string | undefined,
      query: string,
      body?: string,
      auth = files.auth,
      conditions: Record<string, string> = {},
    ): Promise<HttpResponse> => {
      const channel = `/api/channels/${encodeURIComponent(files.channelRef)}`;
      const path = folder === undefined ? `${channel}/restore` : `${channel}/folders/${encodeURIComponent(folder)}/restore`;
      const headers = { ...auth, ...conditions, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
      return request(svc.baseUrl, `${path}${query}`, { method: 'POST', headers, body });
    };

    /** Every live file of the channel and its content, checked against its recorded sha256. */
    async function liveTree(): Promise<Tree> {
      const tree: Tree = {};
      for (const file of await svc.service.store.files.allFiles(fixture.channel.id)) {
        const download = await files.get(file.folder, file.filename);
        assert.equal(download.status, 200);
        assert.equal(sha256(download.bytes), file.sha256, `${file.folder}/${file.filename} holds its recorded bytes`);
        tree[`${file.folder}/${file.filename}`] = download.body;
      }
      return tree;
    }

    async function setTree(tree: Tree): Promise<void> {
      const live = await liveTree();
      for (const path of Object.keys(live)) {
        if (!(path in tree)) assert.equal((await files.delete(...split(path))).status, 204);
      }
      for (const [path, content] of Object.entries(tree)) {
        if (live[path] !== content) assert.ok([200, 201].includes((await files.put(...split(path), content)).status));
      }
    }

    async function backupOf(tree: Tree): Promise<string> {
      await setTree(tree);
      await nextSecond();
      const backup = await files.backup();
      assert.equal(backup.status, 201, backup.body);
      return backup.json().timestamp;
    }

    const restoreEvents = async () => (await files.audit('?action=restore&limit=1000')).json().items as AuditItem[];
    /** Every event of one folder or channel restore, newest first. */
    const operationEvents = async (operationId: string) => {
      const listed = await files.audit(`?operationId=${operationId}&limit=1000`);
      assert.equal(listed.status, 200, listed.body);
      return listed.json().items as AuditItem[];
    };
    const counts = (replaced: number, created: number, deleted: number, unchanged: number, failed = 0) => ({
      replaced,
      created,
      deleted,
      unchanged,
      failed,
    });

    const AT_BACKUP: Tree = {
      'docs/a.txt': 'a at the backup',
      'docs/b.txt': 'b at the backup',
      'docs/c.txt': 'c, never changed',
      'docs2/a.txt': 'the neighbour at the backup',
      'other/x.txt': 'x at the backup',
    };
    const NOW: Tree = {
      'docs/a.txt': 'a changed since',
      'docs/c.txt': 'c, never changed',
      'docs/d.txt': 'd, new since the backup',
      'docs2/a.txt': 'the neighbour changed since',
      'docs2/b.txt': 'the neighbour has a b now',
      'other/x.txt': 'x changed since',
    };
    let timestamp: string;

    before(async () => {
      svc = await startTestService(setup, { transport: 'socket' });
      fixture = await createTenantFixture(svc.service.store, 'Scope');
      const domain = svc.config.auth.domains[0]!;
      files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, domain)) });
      client = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
      timestamp = await backupOf(AT_BACKUP);
    });
    after(() => svc.close());

    test('a dry run answers the plan and changes nothing', async () => {
      await setTree(NOW);
      const backupsBefore = (await files.backups()).json().items.length;
      const auditBefore = (await restoreEvents()).length;

      const plan = await restoreScope('docs', `?backupTimestamp=${timestamp}&dryRun=true`);
      assert.equal(plan.status, 200, plan.body);
      assert.equal(plan.headers['content-type'], 'application/json');
      assert.deepEqual(plan.json(), {
        dryRun: true,
        safetyBackup: null,
        changes: [
          { folder: 'docs', filename: 'a.txt', action: 'replace' },
          { folder: 'docs', filename: 'b.txt', action: 'create' },
        ],
        unchanged: 1,
      });
      const withDeletes = await client.restoreFolder(fixture.channel.id, 'docs', {
        backupTimestamp: timestamp,
        dryRun: true,
        delete: true,
      });
      assert.deepEqual(
        withDeletes.changes.map((c) => `${c.action} ${c.folder}/${c.filename}`),
        ['replace docs/a.txt', 'create docs/b.txt', 'delete docs/d.txt'],
      );
      const channelPlan = await client.restoreChannel(fixture.channel.id, { backupTimestamp: timestamp, dryRun: true, delete: true });
      assert.deepEqual(
        channelPlan.changes.map((c) => `${c.action} ${c.folder}/${c.filename}`),
        [
          'replace docs/a.txt',
          'create docs/b.txt',
          'delete docs/d.txt',
          'replace docs2/a.txt',
          'delete docs2/b.txt',
          'replace other/x.txt',
        ],
      );
      assert.equal(channelPlan.unchanged, 1);

      assert.deepEqual(await liveTree(), NOW, 'nothing changed');
      assert.equal((await files.backups()).json().items.length, backupsBefore, 'no backup taken');
      assert.equal((await restoreEvents()).length, auditBefore, 'an answered dry run is a read: not audited');
    });

    let safetyBackup: string;

    test('a folder restore replaces and creates, keeps extra files (delete=false), touches nothing outside the folder', async () => {
      await setTree(NOW);
      const restored = await restoreScope('docs', `?backupTimestamp=${timestamp}&delete=false`, '{}');
      assert.equal(restored.status, 200, restored.body);
      const result = restored.json();
      assert.equal(result.dryRun, false);
      assert.match(result.safetyBackup, /^\d{8}_\d{6}$/);
      assert.deepEqual(result.changes, [
        { folder: 'docs', filename: 'a.txt', action: 'replace' },
        { folder: 'docs', filename: 'b.txt', action: 'create' },
      ]);
      assert.equal(result.unchanged, 1);
      safetyBackup = result.safetyBackup;

      assert.deepEqual(await liveTree(), {
        ...NOW,
        'docs/a.txt': AT_BACKUP['docs/a.txt'],
        'docs/b.txt': AT_BACKUP['docs/b.txt'],
      });
      // The replaced bytes are kept as a version, as a single-file restore keeps them.
      const versions = (await files.versions('docs', 'a.txt')).json().items as { kind: string; sha256: string }[];
      assert.deepEqual(versions[0], { ...versions[0], kind: 'replaced', sha256: sha256(NOW['docs/a.txt']!) });
      // Nothing outside the folder has a new version: the neighbour docs2/a.txt was not touched.
      const neighbour = (await files.versions('docs2', 'a.txt')).json().items as { kind: string }[];
      assert.equal(neighbour.filter((v) => v.kind === 'replaced').length, 1, 'only setTree replaced docs2/a.txt');

      const backups = (await files.backups()).json().items as { timestamp: string; files: number }[];
      assert.deepEqual(
        backups.find((b) => b.timestamp === safetyBackup),
        { ...backups.find((b) => b.timestamp === safetyBackup), files: Object.keys(NOW).length, origin: 'restore' },
        'the safety backup holds the channel as it was, and says a restore took it',
      );

      const events = await restoreEvents();
      const scopeEvent = events.find((e) => e.filename === null && e.result === 'ok');
      assert.ok(scopeEvent);
      assert.match(scopeEvent.operationId ?? '', /^op_/);
      assert.deepEqual(
        { ...scopeEvent },
        {
          ...scopeEvent,
          folder: 'docs',
          backupTimestamp: timestamp,
          code: null,
          operation: { scope: 'folder', at: null, delete: false, dryRun: false, safetyBackup, counts: counts(1, 1, 0, 1) },
        },
      );
      assert.deepEqual(
        events
          .slice(0, 3)
          .map((e) => `${e.folder}/${e.filename}`)
          .sort(),
        ['docs/a.txt', 'docs/b.txt', 'docs/null'],
        'one event for the folder and one per restored file',
      );
      // One operation: the folder's event, its safety backup and each file's restore carry its id, and nothing else does.
      const operation = await operationEvents(scopeEvent.operationId!);
      assert.deepEqual(operation.map((e) => `${e.action} ${e.folder}/${e.filename} ${e.result}`).sort(), [
        'backup null/null ok',
        'restore docs/a.txt ok',
        'restore docs/b.txt ok',
        'restore docs/null ok',
      ]);
      assert.equal(operation.find((e) => e.action === 'backup')?.backupTimestamp, safetyBackup);
      assert.ok(
        operation.filter((e) => e.filename !== null).every((e) => e.operation === null),
        'the per-file events name the operation, not its record',
      );
      const uploads = (await files.audit('?action=upload&limit=1000')).json().items as AuditItem[];
      assert.ok(
        uploads.length > 0 && uploads.every((e) => e.operationId === null && e.operation === null),
        'writes of their own belong to no operation',
      );
      assertProblem(await files.audit('?operationId='), 400, 'VALIDATION_FAILED');
    });

    test('running the same restore again changes nothing and takes no backup (idempotent)', async () => {
      const again = await client.restoreFolder(fixture.channel.id, 'docs', { backupTimestamp: timestamp });
      assert.deepEqual(again, { dryRun: false, safetyBackup: null, changes: [], unchanged: 3, etag: again.etag });
      assert.match(again.etag, /^"[0-9a-f]{64}"$/);
    });

    test('delete=true also removes live files the backup lacks, each kept as a deleted version', async () => {
      const restored = await restoreScope('docs', `?backupTimestamp=${timestamp}&delete=true`);
      assert.equal(restored.status, 200, restored.body);
      assert.deepEqual(restored.json().changes, [{ folder: 'docs', filename: 'd.txt', action: 'delete' }]);
      assert.equal((await files.get('docs', 'd.txt')).status, 404);
      const kept = (await files.versions('docs', 'd.txt')).json().items as { kind: string; sha256: string }[];
      assert.equal(kept[0]!.kind, 'deleted');
      assert.equal(kept[0]!.sha256, sha256(NOW['docs/d.txt']!));
      assert.equal((await liveTree())['docs2/b.txt'], NOW['docs2/b.txt'], 'the neighbour folder keeps its extra file');
      const [scopeEvent] = await restoreEvents();
      assert.deepEqual(scopeEvent?.operation, {
        scope: 'folder',
        at: null,
        delete: true,
        dryRun: false,
        safetyBackup: restored.json().safetyBackup,
        counts: counts(0, 0, 1, 3),
      });
      const deletion = (await operationEvents(scopeEvent.operationId!)).filter((e) => e.action === 'delete');
      assert.deepEqual(
        deletion.map((e) => `${e.folder}/${e.filename} ${e.result}`),
        ['docs/d.txt ok'],
        'the delete it made belongs to it',
      );
    });

    test('a channel restore from the safety backup (delete=true) undoes the folder restores', async () => {
      const undo = await client.restoreChannel(fixture.channel.id, { backupTimestamp: safetyBackup, delete: true });
      assert.ok(undo.safetyBackup !== null && undo.safetyBackup > safetyBackup);
      assert.deepEqual(await liveTree(), NOW);
    });

    test('a channel restore brings every folder back to the backup', async () => {
      const restored = await restoreScope(undefined, `?backupTimestamp=${timestamp}&delete=true`);
      assert.equal(restored.status, 200, restored.body);
      assert.equal(restored.json().changes.length, 6);
      assert.deepEqual(await liveTree(), AT_BACKUP);
      const events = await restoreEvents();
      const scopeEvent = events.find((e) => e.filename === null && e.result === 'ok');
      assert.equal(scopeEvent?.folder, null, 'a channel restore names no folder');
      assert.equal(scopeEvent?.backupTimestamp, timestamp);
      assert.equal(scopeEvent?.operation?.scope, 'channel');
      assert.deepEqual(scopeEvent?.operation?.counts, counts(3, 1, 2, 1));
      assert.equal((await operationEvents(scopeEvent.operationId!)).length, 1 + 1 + 6, 'itself, its safety backup, six files');
    });

    test('a file changed by someone else while the restore runs is restored anyway, their bytes kept as a version', async () => {
      await setTree(NOW);
      const services = svc.service.files;
      const actor = { adminId: fixture.owner.id };
      const channel = fixture.channel;
      // Another writer uploads docs/a.txt after the plan, just before its per-file restore.
      const interleaved = {
        async restore(...args: Parameters<RestoreService['restore']>) {
          if (args[2].filename === 'a.txt') {
            const { Readable } = await import('node:stream');
            await services.files.put(
              channel,
              actor,
              { folder: 'docs', filename: 'a.txt' },
              Readable.from(['concurrent write']),
              'text/plain',
            );
          }
          return services.restores.restore(...args);
        },
      } as RestoreService;
      const scope = new ScopeRestoreService({ ...services, catalog: svc.service.store.files, restores: interleaved });
      const outcome = await scope.restore(channel, actor, { folder: 'docs', backupTimestamp: timestamp, dryRun: false, delete: false });
      assert.deepEqual(
        outcome.changes.map((c) => c.filename),
        ['a.txt', 'b.txt'],
      );
      assert.equal((await liveTree())['docs/a.txt'], AT_BACKUP['docs/a.txt']);
      const versions = (await files.versions('docs', 'a.txt')).json().items as { kind: string; sha256: string }[];
      assert.equal(versions[0]!.sha256, sha256('concurrent write'), 'the concurrent write is kept, restorable');
    });

    test('a restore stopped by a failing file is audited as failed, with what it got to', async () => {
      await setTree(NOW);
      const services = svc.service.files;
      const actor = { adminId: fixture.owner.id };
      const failing = {
        async restore(...args: Parameters<RestoreService['restore']>) {
          if (args[2].filename === 'b.txt') throw new Error('the storage gave up on b.txt');
          return services.restores.restore(...args);
        },
      } as RestoreService;
      const scope = new ScopeRestoreService({ ...services, catalog: svc.service.store.files, restores: failing });
      await assert.rejects(
        scope.restore(fixture.channel, actor, { folder: 'docs', backupTimestamp: timestamp, dryRun: false, delete: false }),
        /gave up on b\.txt/,
      );
      const [scopeEvent] = await restoreEvents();
      assert.equal(scopeEvent?.result, 'failed');
      assert.equal(scopeEvent?.filename, null);
      assert.equal(scopeEvent?.code, 'INTERNAL_ERROR');
      assert.deepEqual(scopeEvent?.operation?.counts, counts(1, 0, 0, 1, 1), 'a.txt restored, b.txt failed');
      assert.match(scopeEvent?.operation?.safetyBackup ?? '', /^\d{8}_\d{6}$/);
    });

    test("If-Match with the plan's ETag restores exactly the plan reviewed; a change in the scope since is 412, nothing restored", async () => {
      await setTree(NOW);
      const dryRun = `?backupTimestamp=${timestamp}&dryRun=true`;
      const plan = await restoreScope('docs', dryRun);
      assert.equal(plan.status, 200, plan.body);
      const tag = plan.headers.etag!;
      assert.match(tag, /^"[0-9a-f]{64}"$/, 'a strong ETag');
      assert.equal((await restoreScope('docs', dryRun)).headers.etag, tag, 'the same plan, the same tag');
      const others = [
        (await restoreScope('docs', `${dryRun}&delete=true`)).headers.etag,
        (await restoreScope(undefined, dryRun)).headers.etag,
        (await restoreScope('docs', `?backupTimestamp=${safetyBackup}&dryRun=true`)).headers.etag,
      ];
      assert.equal(new Set([tag, ...others]).size, 4, 'delete, the scope and the backup are part of the tag');
      assert.equal((await restoreScope('docs', dryRun, undefined, files.auth, { 'If-Match': tag })).status, 200, 'a dry run checks it too');

      // Someone writes to a file the plan replaces: the plan reviewed is no longer the plan.
      const backupsBefore = (await files.backups()).json().items.length;
      assert.equal((await files.put('docs', 'a.txt', 'someone else wrote this')).status, 200);
      const refused = await restoreScope('docs', `?backupTimestamp=${timestamp}`, undefined, files.auth, { 'If-Match': tag });
      assertProblem(refused, 412, 'PRECONDITION_FAILED');
      assert.match(refused.json().detail, /the folder docs changed since.*nothing was restored/);
      const replanned = await restoreScope('docs', dryRun);
      assert.notEqual(replanned.headers.etag, tag);
      assert.equal(refused.json().currentEtag, replanned.headers.etag, 'the refusal names the tag of the plan as it is now');
      assert.equal((await liveTree())['docs/a.txt'], 'someone else wrote this', 'nothing restored');
      assert.equal((await liveTree())['docs/b.txt'], undefined);
      assert.equal((await files.backups()).json().items.length, backupsBefore, 'no safety backup taken');
      const [refusal] = await restoreEvents();
      assert.deepEqual([refusal?.result, refusal?.code, refusal?.folder], ['refused', 'PRECONDITION_FAILED', 'docs']);

      // A file the plan leaves alone (unchanged in the scope, or outside it) keeps the tag.
      assert.equal((await files.put('other', 'x.txt', 'outside the folder, again')).status, 200);
      const current = replanned.headers.etag!;
      assert.equal((await restoreScope('docs', dryRun)).headers.etag, current);
      // A weak tag never matches; * matches any plan; a list matches if one of them does.
      assertProblem(await restoreScope('docs', dryRun, undefined, files.auth, { 'If-Match': `W/${current}` }), 412, 'PRECONDITION_FAILED');
      assert.equal((await restoreScope('docs', dryRun, undefined, files.auth, { 'If-Match': '*' })).status, 200);
      const restored = await client.restoreFolder(fixture.channel.id, 'docs', { backupTimestamp: timestamp, ifMatch: [tag, current] });
      assert.equal(restored.etag, current, 'the restore answers the tag of the plan it carried out');
      assert.deepEqual(
        restored.changes.map((c) => `${c.action} ${c.filename}`),
        ['replace a.txt', 'create b.txt'],
      );
      assert.equal((await liveTree())['docs/a.txt'], AT_BACKUP['docs/a.txt']);
      await assert.rejects(
        client.restoreChannel(fixture.channel.id, { backupTimestamp: timestamp, ifMatch: tag }),
        (error: unknown) => error instanceof ProblemError && error.status === 412 && error.code === 'PRECONDITION_FAILED',
      );

      // If-None-Match means nothing for a restore: refused, as on a single file's; a malformed If-Match too.
      const noneMatch = await restoreScope('docs', `?backupTimestamp=${timestamp}`, undefined, files.auth, { 'If-None-Match': '*' });
      assertProblem(noneMatch, 400, 'VALIDATION_FAILED');
      assert.match(noneMatch.json().detail, /If-None-Match is not supported on a folder or channel restore/);
      assertProblem(
        await files.restore('docs', 'a.txt', `?backupTimestamp=${timestamp}`, undefined, { 'If-None-Match': '*' }),
        400,
        'VALIDATION_FAILED',
      );
      assertProblem(await restoreScope(undefined, dryRun, undefined, files.auth, { 'If-Match': 'plan-1' }), 400, 'VALIDATION_FAILED');
    });

    test('refusals: 400 for bad options, bodies and names, 404 for an unknown backup or channel, 403 without files:restore', async () => {
      const ts = `?backupTimestamp=${timestamp}`;
      assertProblem(await restoreScope('docs', ''), 400, 'VALIDATION_FAILED');
      assertProblem(await restoreScope(undefined, '?backupTimestamp=20261340_000000'), 400, 'INVALID_TIMESTAMP');
      for (const bad of ['dryRun=1', 'dryRun=', 'dryRun=TRUE', 'delete=yes', 'dryRun=true&dryRun=false']) {
        assertProblem(await restoreScope('docs', `${ts}&${bad}`), 400, 'VALIDATION_FAILED');
      }
      const unknown = await restoreScope(undefined, `${ts}&dry_run=true`);
      assertProblem(unknown, 400, 'VALIDATION_FAILED');
      assert.match(unknown.json().detail, /dry_run/);
      for (const body of ['{"delete":true}', '[]', '"x"']) assertProblem(await restoreScope('docs', ts, body), 400, 'VALIDATION_FAILED');
      assertProblem(await restoreScope('.hidden', ts), 400, 'INVALID_PATH');
      assertProblem(await restoreScope('docs', '?backupTimestamp=20000101_000000'), 404, 'BACKUP_NOT_FOUND');
      assertProblem(await restoreScope(undefined, '?backupTimestamp=20000101_000000&dryRun=true'), 404, 'BACKUP_NOT_FOUND');

      const domain = svc.config.auth.domains[0]!;
      const reader = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], channels: [fixture.channel] });
      const readerAuth = { ...(await signIn(reader.wallet, domain)) };
      assertProblem(await restoreScope('docs', `${ts}&dryRun=true`, undefined, readerAuth), 403, 'PERMISSION_DENIED');
      const other = await createTenantFixture(svc.service.store, 'Elsewhere');
      const stranger = new FilesClient(svc.baseUrl, other.channel.id, files.auth);
      assertProblem(
        await request(svc.baseUrl, `/api/channels/${stranger.channelRef}/restore${ts}`, { method: 'POST', headers: files.auth }),
        404,
        'CHANNEL_NOT_FOUND',
      );

      const refused = (await restoreEvents()).filter((e) => e.result === 'refused' && e.filename === null);
      assert.ok(
        refused.some((e) => e.code === 'BACKUP_NOT_FOUND' && e.folder === 'docs'),
        'refused restores are audited',
      );
      assert.ok(refused.some((e) => e.code === 'PERMISSION_DENIED'));

      await assert.rejects(
        client.restoreChannel(fixture.channel.id, { backupTimestamp: 'yesterday' }),
        (error: unknown) => error instanceof ProblemError && error.code === 'INVALID_TIMESTAMP',
      );
    });

    test('the OpenAPI document describes both restores, their query and their answer', async () => {
      const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
      for (const path of ['/api/channels/{channelRef}/folders/{folderName}/restore', '/api/channels/{channelRef}/restore']) {
        const operation = openapi.paths[path]?.post;
        assert.ok(operation, path);
        const query = (operation.parameters as { in: string; name: string; required?: boolean; schema: { format?: string } }[]).filter(
          (p) => p.in === 'query',
        );
        // backupTimestamp or at: exactly one, which the service checks (400).
        assert.deepEqual(query.map((p) => [p.name, p.required === true]).sort(), [
          ['at', false],
          ['backupTimestamp', false],
          ['delete', false],
          ['dryRun', false],
        ]);
        assert.equal(query.find((p) => p.name === 'at')?.schema.format, 'date-time');
        const schema = operation.responses['200'].content['application/json'].schema;
        assert.deepEqual(Object.keys(schema.properties).sort(), ['changes', 'dryRun', 'quota', 'safetyBackup', 'unchanged']);
        // The quota notice (docs/quotas.md) is there only when a restore goes past one.
        assert.deepEqual([...schema.required].sort(), ['changes', 'dryRun', 'safetyBackup', 'unchanged']);
        assert.ok(operation.responses['200'].headers?.ETag, "the plan's ETag is documented");
        assert.ok(operation.responses['412'], 'so is the refusal of an If-Match the plan no longer meets');
        assert.deepEqual(
          (operation.parameters as { in: string; name: string }[]).filter((p) => p.in === 'header').map((p) => p.name),
          ['if-match'],
        );
      }
    });

    test('the single-file restore answers as before', async () => {
      await files.put('docs', 'a.txt', 'changed once more');
      const restored = await files.restore('docs', 'a.txt', `?backupTimestamp=${timestamp}`, '{}');
      assert.equal(restored.status, 200, restored.body);
      assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
      assert.equal(restored.body, `${svc.baseUrl}/api/channels/${fixture.channel.id}/folders/docs/files/a.txt`);
      assert.equal((await files.get('docs', 'a.txt')).body, AT_BACKUP['docs/a.txt']);
    });
  });
}

function split(path: string): [string, string] {
  const [folder, filename] = path.split('/');
  return [folder!, filename!];
}
