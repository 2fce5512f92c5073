import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { filePath } from '../../src/files/file-path.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { runCli } from '../helpers/cli.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { sample as metricValue } from '../helpers/metrics-text.ts';
import { ageKeys, type OffsiteKeys, offsiteDir } from '../helpers/offsite.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * Drills, checks and rebuilds of a part (docs/offsite.md): `offsite drill` rebuilds the copy into a
 * scratch place and compares it with the live records, changes not yet shipped counting as newer;
 * `offsite check` finds an object gone without decrypting; both are recorded (status, metric, the
 * service-wide chain). `offsite restore --at` stops at an instant and says so in each chain, whose
 * export still verifies; `--tenant` brings back that tenant only.
 */
describe('off-site drills, checks and partial rebuilds (sqlite)', () => {
  let keys: OffsiteKeys;
  let copy: Awaited<ReturnType<typeof offsiteDir>>;
  let svc: TestService;
  let home: TenantFixture;
  let away: TenantFixture;
  let env: Record<string, string>;
  let between = 0;
  const scratch: string[] = [];

  const put = (fixture: TenantFixture, name: string, text: string) =>
    svc.service.files.files.put(
      fixture.channel,
      { adminId: fixture.owner.id },
      filePath('docs', name),
      Readable.from([Buffer.from(text)]),
      'text/plain',
    );
  const freshDir = async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-rebuilt-'));
    scratch.push(dir);
    return dir;
  };

  before(async () => {
    keys = await ageKeys();
    copy = await offsiteDir();
    // The timer never fires again after the first round: the test ships when it says so.
    const offsite = { OFFSITE_URL: copy.url, OFFSITE_RECIPIENTS: keys.recipient, OFFSITE_SHIP_INTERVAL: '3600000' };
    svc = await startTestService('sqlite', { env: offsite, transport: 'socket' });
    env = { DATA_DIR: svc.config.dataDir, ...offsite };
    home = await createTenantFixture(svc.service.store, 'Home');
    away = await createTenantFixture(svc.service.store, 'Away');
    await put(home, 'a.txt', 'a as it was');
    await put(away, 'b.txt', 'away only');
    await svc.service.offsite.shipper!.drain();
    await new Promise((resolve) => setTimeout(resolve, 20));
    between = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await put(home, 'a.txt', 'a as it became');
    await svc.service.offsite.shipper!.drain();
  });
  after(async () => {
    await svc.close();
    await copy.drop();
    await rm(keys.dir, { recursive: true, force: true });
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  test('a drill passes on a whole copy, counting what is not shipped yet as newer; status, metric and the service chain say so', async () => {
    await put(home, 'c.txt', 'not shipped yet');
    const drilled = await runCli(['offsite', 'drill', '--identity', keys.identityFile, '--json'], env);
    assert.equal(drilled.code, 0, drilled.stderr + drilled.stdout);
    const result = JSON.parse(drilled.stdout);
    assert.equal(result.ok, true);
    assert.ok(result.newer > 0, 'the unshipped upload counts as newer');
    assert.ok(result.blobs >= 3, `blobs checked: ${result.blobs}`);
    const status = JSON.parse((await runCli(['offsite', 'status', '--json'], env)).stdout);
    assert.match(status.lastDrill.result, /^ok: /);
    const metrics = await fetch(`${svc.baseUrl}/metrics`).then((r) => r.text());
    assert.equal(metricValue(metrics, 'wallet_admin_offsite_drill_ok'), 1);
    const chain = await runCli(['audit', 'export', '--service'], env);
    assert.match(chain.stdout, /"action":"offsite\.drill"/);
    await svc.service.offsite.shipper!.drain();
  });

  test('an object gone from the target: check and drill fail, loudly, and are recorded as failed', async () => {
    const other = await offsiteDir();
    try {
      const { cp } = await import('node:fs/promises');
      await cp(copy.dir, other.dir, { recursive: true });
      const blobs = await readdir(path.join(copy.dir, 'blobs'));
      await unlink(path.join(copy.dir, 'blobs', blobs[0]!));
      const checked = await runCli(['offsite', 'check', '--json'], env);
      assert.notEqual(checked.code, 0);
      assert.match(checked.stderr + checked.stdout, /OFFSITE_COPY_BROKEN[\s\S]*is missing from the target/);
      const drilled = await runCli(['offsite', 'drill', '--identity', keys.identityFile], env);
      assert.notEqual(drilled.code, 0);
      assert.match(drilled.stderr, /drill failed/);
      const status = JSON.parse((await runCli(['offsite', 'status', '--json'], env)).stdout);
      assert.match(status.lastCheck.result, /^failed: /);
      assert.match(status.lastDrill.result, /^failed: /);
      const metrics = await fetch(`${svc.baseUrl}/metrics`).then((r) => r.text());
      assert.equal(metricValue(metrics, 'wallet_admin_offsite_check_ok'), 0);
      assert.equal(metricValue(metrics, 'wallet_admin_offsite_drill_ok'), 0);
    } finally {
      // The object back, for the tests after.
      const { cp } = await import('node:fs/promises');
      await cp(other.dir, copy.dir, { recursive: true });
      await other.drop();
    }
  });

  test('--at an earlier instant: the file as it was; each chain ends with an entry naming where it stopped, and verifies', async () => {
    const dir = await freshDir();
    const rebuilt = await runCli(
      [
        'offsite',
        'restore',
        '--from',
        copy.url,
        '--identity',
        keys.identityFile,
        '--data-dir',
        dir,
        '--at',
        new Date(between).toISOString(),
        '--json',
      ],
      {},
    );
    assert.equal(rebuilt.code, 0, rebuilt.stderr + rebuilt.stdout);
    const store = await openMetadataStore({ dataDir: dir });
    try {
      const files = await store.offsite.rows('files');
      assert.equal(files.length, 2, 'a.txt and b.txt, not c.txt written after');
      const events = await store.offsite.rows('audit_events');
      const stops = events.filter((e) => e.action === 'offsite.rebuild');
      assert.ok(stops.some((e) => e.tenant_id === home.tenant.id && String(e.change_details).includes('stoppedAtChainSeq')));
    } finally {
      await store.close();
    }
    const exported = await runCli(['audit', 'export', '--tenant', home.tenant.id], { DATA_DIR: dir });
    assert.equal(exported.code, 0, exported.stderr);
    const file = path.join(dir, 'export.jsonl');
    await writeFile(file, exported.stdout);
    const verified = await runCli(['audit', 'verify', file], { DATA_DIR: dir });
    assert.equal(verified.code, 0, verified.stderr + verified.stdout);
  });

  test('--tenant: that tenant only, its records and its bytes', async () => {
    const dir = await freshDir();
    const rebuilt = await runCli(
      ['offsite', 'restore', '--from', copy.url, '--identity', keys.identityFile, '--data-dir', dir, '--tenant', away.tenant.id],
      {},
    );
    assert.equal(rebuilt.code, 0, rebuilt.stderr + rebuilt.stdout);
    const store = await openMetadataStore({ dataDir: dir });
    try {
      assert.deepEqual(
        (await store.offsite.rows('tenants')).map((t) => t.id),
        [away.tenant.id],
      );
      assert.deepEqual(
        (await store.offsite.rows('files')).map((f) => f.filename),
        ['b.txt'],
      );
      const tenantsOfRows = new Set((await store.offsite.rows('audit_events')).map((e) => e.tenant_id));
      assert.deepEqual([...tenantsOfRows], [away.tenant.id]);
      assert.deepEqual(
        (await store.offsite.rows('admins')).map((a) => a.tenant_id),
        [away.tenant.id],
      );
    } finally {
      await store.close();
    }
  });
  test('a service rebuilt from the copy and started with the same OFFSITE_URL goes on with that copy, which still verifies', async () => {
    const dir = await freshDir();
    const rebuilt = await runCli(['offsite', 'restore', '--from', copy.url, '--identity', keys.identityFile, '--data-dir', dir], {});
    assert.equal(rebuilt.code, 0, rebuilt.stderr + rebuilt.stdout);
    const next = await startTestService('sqlite', {
      storage: { dataDir: dir, databaseUrl: undefined, env: {}, s3: undefined, drop: async () => {} },
      env: { OFFSITE_URL: copy.url, OFFSITE_RECIPIENTS: keys.recipient, OFFSITE_SHIP_INTERVAL: '3600000' },
    });
    try {
      await next.service.files.files.put(
        home.channel,
        { adminId: home.owner.id },
        filePath('docs', 'after.txt'),
        Readable.from([Buffer.from('after the rebuild')]),
        'text/plain',
      );
      await next.service.offsite.shipper!.drain();
    } finally {
      await next.close();
    }
    const verified = await runCli(['offsite', 'verify', '--from', copy.url, '--identity', keys.identityFile, '--json'], {});
    assert.equal(verified.code, 0, verified.stderr + verified.stdout);
    const again = await freshDir();
    const latest = await runCli(['offsite', 'restore', '--from', copy.url, '--identity', keys.identityFile, '--data-dir', again], {});
    assert.equal(latest.code, 0, latest.stderr);
    const store = await openMetadataStore({ dataDir: again });
    try {
      assert.ok(
        (await store.offsite.rows('files')).some((file) => file.filename === 'after.txt'),
        "the newest generation is the rebuilt service's",
      );
    } finally {
      await store.close();
    }
  });
});
