import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { createClient, fromViemAccount, type WalletAdminClient } from '../../src/client/index.ts';
import { assertNoConsoleErrors, consoleErrors, screenshot, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { createStorage, freePort, startTestService, type TestService } from '../helpers/test-service.ts';
import { randomPayload } from '../helpers/tus.ts';

const MIB = 1024 * 1024;
/** Above the console's threshold (8 MiB), four of its PATCHes: big enough to reload midway, small enough for CI. */
const LARGE = 32 * MIB;

/**
 * The console's uploads of large files through the service's tus uploads (src/console/transport/
 * resumable-upload.ts): a reload midway, then the same file given again, goes on where the service
 * stands; a small file keeps the plain PUT. On SQLite and disk only: the tus server itself is
 * tested on every backend in test/files.
 */
describe("the console's resumable uploads", () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  let api: WalletAdminClient;
  let dir: string;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Uploads');
    api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    dir = await mkdtemp(path.join(tmpdir(), 'console-uploads-'));
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The page's uploads requests (tus and PUT), in order, with the headers that matter here. */
  function watchUploads(page: Page) {
    const seen: { method: string; url: string; offset: number | undefined; phase: number }[] = [];
    let phase = 0;
    page.on('request', (request: Request) => {
      const url = new URL(request.url());
      if (!/\/uploads(\/|$)|\/files\//.test(url.pathname)) return;
      const offset = request.headers()['upload-offset'];
      seen.push({ method: request.method(), url: url.pathname, offset: offset === undefined ? undefined : Number(offset), phase });
    });
    return {
      seen,
      /** Requests from here on count as the next phase (after a reload). */
      next: () => {
        phase++;
      },
    };
  }

  const storedUploadKeys = (page: Page) =>
    page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('wallet-admin.upload:')));

  test('a large file: a reload midway, the same file again, and the upload goes on from where the service stood', async () => {
    const channel = fixture.channel.id;
    // A file of that name exists: the upload replaces it, and the status line says so.
    await api.upload(channel, 'big', 'big.bin', 'the older bytes');
    const bytes = randomPayload(LARGE);
    const file = path.join(dir, 'big.bin');
    await writeFile(file, bytes);

    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/big` });
    const uploads = watchUploads(page);
    // Slowed down, so that the reload lands midway: about 4 s for the whole file.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const throttle = (bytesPerSecond: number) =>
      cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: bytesPerSecond,
      });
    await throttle(8 * MIB);

    const give = () => page.getByLabel('Files to upload to big').setInputFiles(file);
    await give();
    const progress = page.getByRole('progressbar', { name: 'Upload of big.bin' });
    // Past the first PATCH (8 MiB), so that the service holds part of the file.
    await page.waitForFunction(
      (size) => Number(document.querySelector<HTMLProgressElement>('.upload progress')?.value ?? 0) > size * 0.4,
      LARGE,
    );
    assert.deepEqual(await storedUploadKeys(page).then((keys) => keys.length), 1, "the upload's URL is kept in localStorage");
    await screenshot(page, 'resumable-upload-sending', { width: 1440 });

    uploads.next();
    await page.reload();
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
    await throttle(16 * MIB);
    // The row says it resumed, as long as it is shown (a picture of it at 360 px); the requests below say more.
    const saidResumed = page
      .locator('.upload-state')
      .getByText(/^(Resuming at [1-9]\d? %|.* of .*, resumed at [1-9]\d? %)$/)
      .waitFor({ timeout: 15_000 })
      .then(
        async () => {
          await screenshot(page, 'resumable-upload-resumed', { width: 360 });
          return true;
        },
        () => false,
      );
    await give();
    await page.getByRole('status').getByText('big.bin replaced; the previous bytes are kept as a version').waitFor();
    await progress.waitFor({ state: 'detached' });

    const before = uploads.seen.filter((r) => r.phase === 0);
    const after = uploads.seen.filter((r) => r.phase === 1);
    assert.deepEqual(
      before.slice(0, 2).map((r) => r.method),
      ['POST', 'PATCH'],
      JSON.stringify(before),
    );
    const uploadUrl = before[1]!.url;
    assert.match(uploadUrl, /^\/api\/channels\/[^/]+\/uploads\/[0-9a-f]{32}$/);
    assert.ok(!after.some((r) => r.method === 'POST' || r.method === 'PUT'), `no new upload after the reload: ${JSON.stringify(after)}`);
    assert.equal(after[0]?.method, 'HEAD', 'the page asked where the upload stood first');
    assert.equal(after[0]?.url, uploadUrl);
    const firstPatch = after.find((r) => r.method === 'PATCH');
    assert.ok(firstPatch, JSON.stringify(after));
    assert.equal(firstPatch.url, uploadUrl);
    assert.ok(firstPatch.offset! >= 8 * MIB, `the first PATCH after the reload went on from ${firstPatch.offset}, not from the start`);
    assert.ok(after.every((r) => r.method !== 'PATCH' || r.offset! > 0));
    assert.ok(await saidResumed, 'the upload row said it resumed ("Resuming at n %")');
    await page.setViewportSize({ width: 1440, height: 900 });

    const stored = Buffer.from(await (await api.download(channel, 'big', 'big.bin')).arrayBuffer());
    assert.equal(sha256(stored), sha256(bytes), 'the stored file is the file given');
    assert.deepEqual(await storedUploadKeys(page), [], 'the URL of the finished upload is no longer kept');
    assertNoConsoleErrors(page);
  });

  test('a dropped connection: the row says so, and the upload goes on by itself once the service is reached again', async () => {
    const channel = fixture.channel.id;
    const bytes = randomPayload(24 * MIB);
    const file = path.join(dir, 'drop.bin');
    await writeFile(file, bytes);
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/big` });
    const uploads = watchUploads(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    const network = (offline: boolean) =>
      cdp.send('Network.emulateNetworkConditions', { offline, latency: 0, downloadThroughput: -1, uploadThroughput: 8 * MIB });
    await network(false);
    await page.getByLabel('Files to upload to big').setInputFiles(file);
    await page.waitForFunction(
      () => Number(document.querySelector<HTMLProgressElement>('.upload progress')?.value ?? 0) > 10 * 1024 * 1024,
    );
    await network(true);
    await page
      .locator('.upload-state')
      .getByText(/^Connection lost, trying again at .* of .*$/)
      .waitFor();
    await network(false);
    const failed = page.locator('.upload-failed .upload-state');
    const outcome = await Promise.race([
      page
        .getByRole('status')
        .getByText('drop.bin uploaded')
        .waitFor()
        .then(() => 'uploaded'),
      failed.waitFor().then(
        () => 'failed',
        () => 'never',
      ),
    ]);
    if (outcome !== 'uploaded') assert.fail(`the upload failed: ${await failed.innerText()}`);

    assert.equal(uploads.seen.filter((r) => r.method === 'POST').length, 1, 'one upload, not a second');
    const patches = uploads.seen.filter((r) => r.method === 'PATCH').map((r) => r.offset!);
    assert.ok(patches.filter((offset) => offset === 0).length === 1, `only the first PATCH starts at 0: ${patches.join(', ')}`);
    const stored = Buffer.from(await (await api.download(channel, 'big', 'drop.bin')).arrayBuffer());
    assert.equal(sha256(stored), sha256(bytes));
    // Chromium logs the requests the lost connection failed; nothing else went wrong.
    assert.deepEqual(
      consoleErrors(page).filter((line) => !/net::ERR_INTERNET_DISCONNECTED/.test(line)),
      [],
    );
  });

  test('a small file keeps the plain PUT', async () => {
    const channel = fixture.channel.id;
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/big` });
    const uploads = watchUploads(page);
    await page
      .getByLabel('Files to upload to big')
      .setInputFiles({ name: 'small.txt', mimeType: 'text/plain', buffer: Buffer.from('small') });
    await page.getByRole('status').getByText('small.txt uploaded').waitFor();
    assert.deepEqual(
      uploads.seen.map((r) => `${r.method} ${r.url}`),
      [`PUT /api/channels/${channel}/folders/big/files/small.txt`],
    );
    assert.equal(await (await api.download(channel, 'big', 'small.txt')).text(), 'small');
    assertNoConsoleErrors(page);
  });
});

describe("the console's resumable uploads across a restart of the service", () => {
  const browser = useBrowser();

  test('the service stops midway and comes back on the same address: the upload goes on from where it stood', async () => {
    const storage = await createStorage('sqlite');
    const port = String(await freePort());
    // Its own address (startTestService's baseUrl names the port it picked, which PORT overrides).
    const baseUrl = `http://127.0.0.1:${port}`;
    const start = () => startTestService('sqlite', { transport: 'socket', storage, env: { PORT: port } });
    let svc = await start();
    const dir = await mkdtemp(path.join(tmpdir(), 'console-restart-'));
    try {
      const fixture = await createTenantFixture(svc.service.store, 'Restart');
      const bytes = randomPayload(24 * MIB);
      const file = path.join(dir, 'restart.bin');
      await writeFile(file, bytes);
      const channel = fixture.channel.id;
      const { page } = await openSignedIn(browser, baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/big` });
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 8 * MIB });
      const requests: { method: string; offset: number | undefined }[] = [];
      page.on('request', (request) => {
        if (!/\/uploads(\/|$)/.test(new URL(request.url()).pathname)) return;
        const offset = request.headers()['upload-offset'];
        requests.push({ method: request.method(), offset: offset === undefined ? undefined : Number(offset) });
      });
      await page.getByLabel('Files to upload to big').setInputFiles(file);
      await page.waitForFunction(
        () => Number(document.querySelector<HTMLProgressElement>('.upload progress')?.value ?? 0) > 10 * 1024 * 1024,
      );
      // The service goes away (its connections cut) and a new one starts on the same address and data.
      await svc.close();
      await page
        .locator('.upload-state')
        .getByText(/^Connection lost, trying again at .* of .*$/)
        .waitFor();
      svc = await start();
      await page.getByRole('status').getByText('restart.bin uploaded').waitFor({ timeout: 60_000 });
      const api = createClient({ baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
      const stored = Buffer.from(await (await api.download(channel, 'big', 'restart.bin')).arrayBuffer());
      assert.equal(sha256(stored), sha256(bytes));
      // One upload, resumed: a single creation, and only its first PATCH from the start.
      assert.equal(requests.filter((r) => r.method === 'POST').length, 1, JSON.stringify(requests));
      assert.deepEqual(
        requests.filter((r) => r.method === 'PATCH' && r.offset === 0).length,
        1,
        `only the first PATCH starts at 0: ${JSON.stringify(requests)}`,
      );
    } finally {
      await svc.close();
      await storage.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
