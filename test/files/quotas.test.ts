import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Channel } from '../../src/model/channels.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { runCli } from '../helpers/cli.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/** An upload whose length is not declared: the body comes chunked, as a stream of unknown size does. */
function chunkedPut(files: FilesClient, folder: string, filename: string, body: Buffer): Promise<{ status: number; json: any }> {
  const url = new URL(`${files.baseUrl}${files.filePath(folder, filename)}`);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'PUT', headers: { ...files.auth, 'Content-Type': 'application/octet-stream', 'Transfer-Encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 64) req.write(body.subarray(i, i + 64));
    req.end();
  });
}

for (const setup of ENGINES) {
  describe(`quotas (${setup})`, () => {
    let storage: Storage;
    let svc: TestService;
    let other: TestService;
    let fixture: TenantFixture;
    let channelB: Channel;
    let files: FilesClient;
    let cliEnv: Record<string, string | undefined>;
    const json = { 'Content-Type': 'application/json' };
    const usage = async (channel = fixture.channel.id) =>
      (await request(svc.baseUrl, `/api/channels/${channel}/usage`, { headers: files.auth })).json();
    const setChannelQuota = (body: object, auth = files.auth, channel = fixture.channel.id) =>
      request(svc.baseUrl, `/api/channels/${channel}/quota`, { method: 'PUT', headers: { ...auth, ...json }, body: JSON.stringify(body) });

    before(async () => {
      storage = await createStorage(setup);
      cliEnv = { DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl, ...storage.env };
      svc = await startTestService(setup, { storage, transport: 'socket' });
      // A second instance on the same database and storage: races are between processes' requests, not one's.
      other = await startTestService(setup, { storage, transport: 'socket' });
      fixture = await createTenantFixture(svc.service.store, 'Quotas');
      // Linked before the owner first signs in: both instances know it from the start.
      channelB = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'second' });
      await svc.service.store.linkChannel(channelB.id, fixture.owner.id);
      files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(async () => {
      await other.close();
      await svc.close();
      await storage.drop();
    });

    test('usage counts every record once: live files and kept versions; a delete moves one, it adds none', async () => {
      for (const name of ['a', 'b', 'c']) assert.equal((await files.put('docs', `${name}.bin`, Buffer.alloc(100, 1))).status, 201);
      assert.equal((await files.put('docs', 'a.bin', Buffer.alloc(150, 2))).status, 200);
      assert.equal((await files.delete('docs', 'b.bin')).status, 204);
      const seen = await usage();
      // Live: a (150) and c; kept: a's first bytes (replaced) and b (deleted).
      assert.deepEqual(seen.usage, { files: 4, bytes: 450, live: { files: 2, bytes: 250 }, kept: { files: 2, bytes: 200 } });
      assert.deepEqual(seen.quota, { maxBytes: null, maxFiles: null });
      assert.deepEqual(seen.left, { bytes: null, files: null });
    });

    test('past a channel quota an upload is refused before its bytes are stored, declared or chunked; deletes and restores never are', async () => {
      const before = await usage();
      const set = await setChannelQuota({ maxBytes: before.usage.bytes + 100, maxFiles: null });
      assert.equal(set.status, 200, set.body);
      assert.deepEqual(set.json(), {
        channelId: fixture.channel.id,
        maxBytes: before.usage.bytes + 100,
        maxFiles: null,
        tenant: { maxBytes: null, maxFiles: null },
      });

      const declared = await files.put('docs', 'big.bin', Buffer.alloc(101, 3));
      assertProblem(declared, 507, 'QUOTA_EXCEEDED');
      const problem = declared.json();
      assert.equal(problem.quota.scope, 'channel');
      assert.deepEqual(problem.used, { files: before.usage.files, bytes: before.usage.bytes });
      assert.deepEqual(problem.left, { bytes: 100, files: null });
      assert.match(problem.detail, /channel's quota/);

      const chunked = await chunkedPut(files, 'docs', 'streamed.bin', Buffer.alloc(5000, 4));
      assert.equal(chunked.status, 507);
      assert.equal(chunked.json.code, 'QUOTA_EXCEEDED');
      assert.equal((await files.get('docs', 'streamed.bin')).status, 404, 'nothing half-stored');
      assert.deepEqual((await usage()).usage, before.usage, 'the refusals changed nothing');

      assert.equal((await files.put('docs', 'fits.bin', Buffer.alloc(100, 5))).status, 201, 'what fits is stored');
      assertProblem(await files.put('docs', 'one-byte.bin', Buffer.alloc(1)), 507, 'QUOTA_EXCEEDED');

      // A tenant filled by a stolen key can still undo: a restore past the quota runs, and so does a delete.
      const restored = await files.restore(
        'docs',
        'a.bin',
        `?versionId=${(await files.versions('docs', 'a.bin')).json().items.find((v: any) => v.size === 100).id}`,
      );
      assert.equal(restored.status, 200, restored.body);
      assert.ok((await usage()).usage.bytes > before.usage.bytes + 100, 'the restore went past the quota');
      assert.equal((await files.delete('docs', 'fits.bin')).status, 204);

      // A folder restore past the quota says so in its plan, and runs.
      await nextSecond();
      const backup = (await files.backup()).json().timestamp as string;
      await files.delete('docs', 'c.bin');
      const plan = await request(
        svc.baseUrl,
        `/api/channels/${fixture.channel.id}/folders/docs/restore?backupTimestamp=${backup}&dryRun=true`,
        {
          method: 'POST',
          headers: { ...files.auth, ...json },
        },
      );
      assert.equal(plan.status, 200, plan.body);
      const used = (await usage()).usage;
      assert.deepEqual(plan.json().quota, {
        scope: 'channel',
        maxBytes: before.usage.bytes + 100,
        maxFiles: null,
        used: { files: used.files, bytes: used.bytes },
        after: { files: used.files + 1, bytes: used.bytes + 100 },
      });
      const ran = await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/folders/docs/restore?backupTimestamp=${backup}`, {
        method: 'POST',
        headers: { ...files.auth, ...json },
      });
      assert.equal(ran.status, 200, ran.body);
      assert.equal(ran.json().quota.scope, 'channel');
      assert.equal((await files.get('docs', 'c.bin')).status, 200, 'brought back past the quota');

      // Lowering a quota below usage deletes nothing; lifting it lets uploads in again.
      assert.equal((await setChannelQuota({ maxBytes: 10, maxFiles: 1 })).status, 200);
      assert.equal((await files.get('docs', 'a.bin')).status, 200);
      assert.equal((await setChannelQuota({ maxBytes: null, maxFiles: null })).status, 200);
      assert.equal((await files.put('docs', 'after.bin', Buffer.alloc(10))).status, 201);
    });

    test('a channel quota is set by channels:manage within the tenant quota the operator sets, each change audited', async () => {
      const member = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['files:read', 'files:write'],
        channels: [fixture.channel],
      });
      const memberAuth = { ...(await signIn(member.wallet, svc.config.auth.domains[0]!)) };
      assertProblem(await setChannelQuota({ maxBytes: 1, maxFiles: 1 }, memberAuth), 403, 'PERMISSION_DENIED');
      assertProblem(await setChannelQuota({ maxBytes: '1' }), 400, 'VALIDATION_FAILED');
      assertProblem(await setChannelQuota({ maxBytes: -1, maxFiles: null }), 400, 'VALIDATION_FAILED');
      assertProblem(await setChannelQuota({ maxBytes: 1, maxFiles: 1, hard: true }), 400, 'VALIDATION_FAILED');

      const cli = await runCli(
        ['tenant', 'set-quota', '--tenant', fixture.tenant.id, '--max-bytes', '1000000', '--max-files', 'none', '--json'],
        cliEnv,
      );
      assert.equal(cli.code, 0, cli.stderr);
      assert.deepEqual(cli.json().quota, { maxBytes: 1_000_000, maxFiles: null });
      assert.equal((await runCli(['tenant', 'set-quota', '--tenant', fixture.tenant.id, '--max-bytes', 'lots'], cliEnv)).code, 2);
      const within = await setChannelQuota({ maxBytes: 2_000_000, maxFiles: null });
      assertProblem(within, 400, 'VALIDATION_FAILED');
      assert.match(within.json().detail, /within the tenant's quota of 1000000/);
      assert.equal((await setChannelQuota({ maxBytes: 500_000, maxFiles: 100 })).status, 200);
      const quota = (await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/quota`, { headers: files.auth })).json();
      assert.deepEqual(quota.tenant, { maxBytes: 1_000_000, maxFiles: null });

      const tenantLog = (await request(svc.baseUrl, '/api/audit?action=tenant.update', { headers: files.auth })).json().items;
      assert.deepEqual(tenantLog[0].change.after.quota, { maxBytes: 1_000_000, maxFiles: null });
      assert.equal(tenantLog[0].adminId, null, "the operator's");
      const channelLog = (await request(svc.baseUrl, '/api/audit?action=channel.update', { headers: files.auth })).json().items;
      assert.deepEqual(channelLog[0].change.after.quota, { maxBytes: 500_000, maxFiles: 100 });

      const tenant = (await request(svc.baseUrl, '/api/usage', { headers: files.auth })).json();
      assert.equal(tenant.tenantId, fixture.tenant.id);
      assert.deepEqual(tenant.quota, { maxBytes: 1_000_000, maxFiles: null });
      const own = tenant.channels.find((c: any) => c.channelId === fixture.channel.id);
      // A channel never written to is listed too, holding nothing.
      const unwritten = tenant.channels.find((c: any) => c.channelId === channelB.id);
      assert.deepEqual(unwritten.usage, { files: 0, bytes: 0, live: { files: 0, bytes: 0 }, kept: { files: 0, bytes: 0 } });
      assert.deepEqual(own.usage, (await usage()).usage);
      assert.equal(tenant.left.bytes, 1_000_000 - tenant.usage.bytes);
      await runCli(['tenant', 'set-quota', '--tenant', fixture.tenant.id, '--max-bytes', 'none'], cliEnv);
      await setChannelQuota({ maxBytes: null, maxFiles: null });
    });

    test('20 uploads racing for the last bytes on two instances: usage never passes the quota, each refusal is clear', async () => {
      const used = (await request(svc.baseUrl, '/api/usage', { headers: files.auth })).json().usage;
      // Room for exactly 10 of 20 uploads of 100 bytes, spread over two channels and two instances: the tenant's quota decides.
      assert.equal(
        (await runCli(['tenant', 'set-quota', '--tenant', fixture.tenant.id, '--max-bytes', String(used.bytes + 1000)], cliEnv)).code,
        0,
      );
      const otherAuth = { ...(await signIn(fixture.ownerWallet, other.config.auth.domains[0]!)) };
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const [base, auth] = i % 2 === 0 ? [svc.baseUrl, files.auth] : [other.baseUrl, otherAuth];
          const channel = i % 4 < 2 ? fixture.channel.id : channelB.id;
          return new FilesClient(base, channel, auth).put('race', `r${i}.bin`, Buffer.alloc(100, i));
        }),
      );
      const stored = results.filter((r) => r.status === 201);
      const refused = results.filter((r) => r.status !== 201);
      for (const r of refused) assertProblem(r, 507, 'QUOTA_EXCEEDED');
      const after = (await request(svc.baseUrl, '/api/usage', { headers: files.auth })).json();
      assert.equal(
        stored.length,
        10,
        `exactly the room: ${results.map((r) => r.status).join(' ')}; usage ${JSON.stringify(used)} before, ${JSON.stringify(after.usage)} after, quota ${JSON.stringify(after.quota)}`,
      );
      assert.equal(after.usage.bytes, used.bytes + 1000);
      assert.ok(after.usage.bytes <= after.quota.maxBytes);
      const listed =
        (await files.list('race')).json().items.length +
        (await new FilesClient(svc.baseUrl, channelB.id, files.auth).list('race')).json().items.length;
      assert.equal(listed, 10, 'nothing half-stored: only what was answered 201');
      await runCli(['tenant', 'set-quota', '--tenant', fixture.tenant.id, '--max-bytes', 'none'], cliEnv);
    });
  });
}
