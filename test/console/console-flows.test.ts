import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient, fromViemAccount, ProblemError } from '../../src/client/index.ts';
import { formatBackupTimestamp } from '../../src/time/backup-timestamp.ts';
import { ENGINES } from '../helpers/backends.ts';
import { assertNoConsoleErrors, consoleErrors, failedRequests, type InjectedWallet, injectWallet, useBrowser } from '../helpers/browser.ts';
import { type ConsolePageOptions, openSignedIn } from '../helpers/console-page.ts';
import { nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { testSize } from '../helpers/test-size.ts';
import { base64Header, type TestWallet } from '../helpers/wallets.ts';

/**
 * What an admin does in the console, in Chromium, against the real service: the wallet is the
 * injected test wallet (real secp256k1 signatures), the service and its database are real.
 * `npm test` runs them on the first engine, whose API every engine's own suites hold to the same
 * answers; `npm run soak` runs them on every engine (about 45 s each).
 */
for (const engine of testSize(ENGINES.slice(0, 1), ENGINES)) {
  describe(`the console on ${engine}`, () => {
    const browser = useBrowser();
    let svc: TestService;
    let fixture: TenantFixture;
    let viewer: { wallet: TestWallet; adminId: string };

    before(async () => {
      // No clock leeway: a message expires when it says (the expiry flow below waits for that).
      svc = await startTestService(engine, { transport: 'socket', env: { AUTH_CLOCK_SKEW: '0' } });
      fixture = await createTenantFixture(svc.service.store, 'Console');
      const member = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['files:read', 'audit:read'],
        channels: [fixture.channel],
      });
      viewer = { wallet: member.wallet, adminId: member.admin.id };
    });
    after(() => svc.close());

    /** A client of the service in Node, signing with `wallet`: what the tests check the console's work with. */
    const apiAs = (wallet: TestWallet) => createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(wallet.account) });

    const signedInPage = (wallet: TestWallet, options: ConsolePageOptions = {}) => openSignedIn(browser, svc.baseUrl, wallet, options);

    /** The headers the page presented with its n-th signature, rebuilt from what the wallet signed. */
    const headersOf = (injected: InjectedWallet, n: number) => {
      const signed = injected.signed[n]!;
      return { 'X-WAL': injected.address, 'X-SIG': signed.signature, 'X-MES': base64Header(signed.text) };
    };

    /**
     * The browser logs each answer with an error status as "Failed to load resource"; where a test
     * provokes a refusal on purpose, exactly those lines (of the given statuses) are expected, no other.
     */
    const assertOnlyRefusals = (page: Page, statuses: number[]) => {
      const refusal = new RegExp(
        `^console\\.error: Failed to load resource: the server responded with a status of (${statuses.join('|')}) `,
      );
      assert.deepEqual(
        consoleErrors(page).filter((line) => !refusal.test(line)),
        [],
        'no console error but the refusals provoked',
      );
    };

    test('sign in, upload, back up, change, restore from the backup, undo; the audit log shows all of it', async () => {
      const { page, injected } = await signedInPage(fixture.ownerWallet);
      assert.equal(injected.signed.length, 1, 'one signature for the session');
      const message = injected.signed[0]!.text;
      assert.match(
        message,
        new RegExp(`^${new URL(svc.baseUrl).host} wants you to sign in with your Ethereum account:\\n${fixture.ownerWallet.address}\\n`),
      );
      assert.match(message, new RegExp(`\\nURI: ${svc.baseUrl}\\n`));
      assert.match(message, /\nChain ID: 1\n/);
      const issued = Date.parse(/\nIssued At: (\S+)/.exec(message)![1]!);
      const expires = Date.parse(/\nExpiration Time: (\S+)/.exec(message)![1]!);
      assert.equal(expires - issued, 8 * 3600 * 1000, 'a working day unless the admin picks another lifetime');

      // Who am I, and the channel.
      await page.getByRole('heading', { name: 'Who am I' }).waitFor();
      await page.locator('dl').getByText(fixture.ownerWallet.address).waitFor();
      await page.getByText(fixture.tenant.id).waitFor();
      await page.getByRole('link', { name: /main/ }).click();

      // A new folder comes with its first upload.
      await page.getByLabel('New folder').fill('reports');
      await page.getByRole('button', { name: 'Open to upload' }).click();
      await page.getByRole('heading', { name: 'reports' }).waitFor();
      await page
        .getByLabel('Files to upload to reports')
        .setInputFiles({ name: 'q3.txt', mimeType: 'text/plain', buffer: Buffer.from('first draft') });
      await page.getByRole('link', { name: 'q3.txt' }).waitFor();
      await page.getByRole('status').getByText('q3.txt uploaded').waitFor();

      // Back up.
      await page.getByRole('link', { name: 'Backups' }).click();
      await page.getByRole('button', { name: 'Back up now' }).click();
      await page
        .getByRole('status')
        .getByText(/^Backup \d{8}_\d{6} made: 1 file,/)
        .waitFor();
      const backups = await apiAs(fixture.ownerWallet).listBackups(fixture.channel.id);
      assert.equal(backups.items.length, 1);
      const backup = backups.items[0]!;
      await page.getByRole('rowheader', { name: new RegExp(backup.timestamp) }).waitFor();

      // Change the file: the upload replaces it.
      await page.goto(`${svc.baseUrl}/console/#/channels/${fixture.channel.id}/folders/reports`);
      await page
        .getByLabel('Files to upload to reports')
        .setInputFiles({ name: 'q3.txt', mimeType: 'text/plain', buffer: Buffer.from('final, reviewed') });
      await page.getByRole('status').getByText('q3.txt replaced').waitFor();

      // Restore from the backup, after a confirmation that names what is kept.
      await page.getByRole('link', { name: 'q3.txt' }).click();
      await page.getByRole('heading', { name: 'History' }).waitFor();
      await page.getByRole('button', { name: /^Restore backup of / }).click();
      const dialog = page.getByRole('dialog', { name: 'Restore q3.txt?' });
      await dialog.getByText(/is kept as a version first, so you can undo this restore/).waitFor();
      await dialog.getByRole('button', { name: 'Restore' }).click();
      await page.getByRole('status').getByText('q3.txt restored', { exact: false }).waitFor();
      const api = apiAs(fixture.ownerWallet);
      assert.equal(await (await api.download(fixture.channel.id, 'reports', 'q3.txt')).text(), 'first draft');

      // Undo brings back what the restore replaced.
      await page.getByRole('button', { name: 'Undo restore' }).click();
      await page.getByRole('status').getByText('Restore of q3.txt undone.').waitFor();
      assert.equal(await (await api.download(fixture.channel.id, 'reports', 'q3.txt')).text(), 'final, reviewed');

      // The audit log: every step, and the filters.
      await page.getByRole('link', { name: 'Audit log' }).click();
      const rows = page.locator('.audit-table tbody tr');
      await rows.first().waitFor();
      const actions = await page.locator('.audit-table tbody tr td:nth-child(2)').allTextContents();
      assert.deepEqual(actions, ['restore', 'restore', 'upload', 'backup', 'upload']);
      await page.getByLabel('Action').selectOption('restore');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/audit\?action=restore$/);
      await page.waitForFunction(() => document.querySelectorAll('.audit-table tbody tr').length === 2);
      assert.equal(injected.signed.length, 1, 'the whole session ran on one signature');
      assertNoConsoleErrors(page);
    });

    test('files: drop to upload with progress, download, delete after a confirmation, undo the delete', async () => {
      const { page } = await signedInPage(fixture.ownerWallet, { hash: `#/channels/${fixture.channel.id}/folders/drops` });
      await page.getByRole('heading', { name: 'drops' }).waitFor();
      // The progress row goes once the upload is done: what it showed on the way is recorded as it changes.
      await page.evaluate(() => {
        const seen: { value: number; max: number }[] = [];
        (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
        new MutationObserver(() => {
          for (const bar of document.querySelectorAll('progress')) seen.push({ value: Number(bar.value), max: Number(bar.max) });
        }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['value', 'max'] });
      });
      // A drop as the browser delivers it: a DataTransfer holding a File.
      const transfer = await page.evaluateHandle(() => {
        const data = new DataTransfer();
        data.items.add(new File(['x'.repeat(3_000_000)], 'big.bin', { type: 'application/octet-stream' }));
        return data;
      });
      await page.locator('.drop-zone').dispatchEvent('drop', { dataTransfer: transfer });
      await page.getByRole('link', { name: 'big.bin' }).waitFor();
      await page.getByRole('status').getByText('big.bin uploaded').waitFor();
      const seen = await page.evaluate(() => (window as unknown as { progressSeen: { value: number; max: number }[] }).progressSeen);
      assert.ok(seen.length > 0, 'a progress bar was shown while sending');
      assert.deepEqual(seen.at(-1), { value: 3_000_000, max: 3_000_000 }, 'it ended full');
      assert.equal(await page.getByRole('progressbar').count(), 0, 'the row went once the file arrived: the table shows it');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download big.bin' }).click()]);
      assert.equal(download.suggestedFilename(), 'big.bin');
      const stream = await download.createReadStream();
      let bytes = 0;
      for await (const chunk of stream) bytes += (chunk as Buffer).length;
      assert.equal(bytes, 3_000_000);

      await page.getByRole('button', { name: 'Delete big.bin' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete big.bin?' });
      await dialog.getByText('you can undo this').waitFor();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByText('This folder has no files').waitFor();
      await page.getByRole('button', { name: 'Undo' }).click();
      await page.getByRole('link', { name: 'big.bin' }).waitFor();
      const live = await apiAs(fixture.ownerWallet).stat(fixture.channel.id, 'drops', 'big.bin');
      assert.equal(live?.size, 3_000_000);
      assertNoConsoleErrors(page);
    });

    test('a sub-admin without files:restore sees no restore action, and the API refuses it if forced', async () => {
      const api = apiAs(fixture.ownerWallet);
      await api.upload(fixture.channel.id, 'shared', 'plan.txt', 'plan v1');
      await api.createBackup(fixture.channel.id).catch(() => undefined);
      await api.upload(fixture.channel.id, 'shared', 'plan.txt', 'plan v2');

      const { page } = await signedInPage(viewer.wallet, { hash: `#/channels/${fixture.channel.id}/folders/shared/files/plan.txt` });
      await page.locator('.timeline-item').first().waitFor();
      assert.ok((await page.locator('.timeline-item').count()) >= 2, 'the history is shown');
      assert.equal(await page.getByRole('button', { name: /restore/i }).count(), 0, 'no restore button');
      await page.getByRole('note').getByText('files:restore').waitFor();
      // Nor upload, delete or back up: the permissions are files:read and audit:read.
      await page.goto(`${svc.baseUrl}/console/#/channels/${fixture.channel.id}/folders/shared`);
      await page.getByRole('link', { name: 'plan.txt' }).waitFor();
      assert.equal(await page.getByRole('button', { name: /^Delete/ }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Choose files…' }).count(), 0);
      await page.getByRole('link', { name: 'Backups' }).click();
      await page.getByRole('heading', { name: 'Backups' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Back up now' }).count(), 0);
      assertNoConsoleErrors(page);

      const forced = await apiAs(viewer.wallet)
        .restore(fixture.channel.id, 'shared', 'plan.txt')
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      assert.ok(forced instanceof ProblemError, 'a problem answer');
      assert.equal(forced.status, 403);
      assert.equal(forced.code, 'PERMISSION_DENIED');
    });

    test('an admin who may write but not restore deletes a file: no undo is offered, the confirmation says who can bring it back', async () => {
      const writer = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['files:read', 'files:write'],
        channels: [fixture.channel],
      });
      await apiAs(fixture.ownerWallet).upload(fixture.channel.id, 'drafts', 'old.txt', 'old');
      const { page } = await signedInPage(writer.wallet, { hash: `#/channels/${fixture.channel.id}/folders/drafts` });
      await page.getByRole('button', { name: 'Delete old.txt' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete old.txt?' });
      await dialog.getByText('an admin with the files:restore permission can bring it back').waitFor();
      await dialog.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('status').getByText('old.txt deleted').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Undo' }).count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Audit log' }).count(), 0, 'no audit:read, no audit tab');
      assertNoConsoleErrors(page);
    });

    test('signed out elsewhere mid-session: the sign-in comes back over the view, which carries on after signing', async () => {
      const hash = `#/channels/${fixture.channel.id}/backups`;
      const { page, injected } = await signedInPage(fixture.ownerWallet, { hash });
      await page.getByRole('heading', { name: 'Backups' }).waitFor();
      // Another tab (here: Node) signs this message out.
      const logout = await fetch(`${svc.baseUrl}/api/auth/logout`, { method: 'POST', headers: headersOf(injected, 0) });
      assert.equal(logout.status, 204);

      await page.getByRole('link', { name: 'Audit log' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sign in again' });
      await dialog.waitFor();
      assert.equal(injected.signed.length, 1, 'the wallet is not prompted before the admin agrees');
      await dialog.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      await page.locator('.audit-table tbody tr').first().waitFor();
      assert.equal(injected.signed.length, 2);
      assert.match(page.url(), /#\/channels\/[^/]+\/audit$/, 'still where the admin went');
      assertOnlyRefusals(page, [401]);
    });

    test('a message that expires mid-session: signed in again, the view kept', async () => {
      // The page's clock runs 8 hours minus 4 seconds behind: its working-day message expires 4 s from now.
      const behindMs = 8 * 3600 * 1000 - 4000;
      const { page, injected } = await signedInPage(fixture.ownerWallet, {
        hash: `#/channels/${fixture.channel.id}/folders`,
        before: (p) =>
          p.addInitScript((ms) => {
            const realNow = Date.now;
            Date.now = () => realNow() - ms;
          }, behindMs),
      });
      await page.getByRole('heading', { name: 'Folders' }).waitFor();
      const expires = Date.parse(/\nExpiration Time: (\S+)/.exec(injected.signed[0]!.text)![1]!);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires - Date.now()) + 1000));

      await page.getByRole('link', { name: 'Backups' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sign in again' });
      await dialog.waitFor();
      await dialog.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      await page.getByRole('heading', { name: 'Backups' }).waitFor();
      await page.getByRole('button', { name: 'Back up now' }).waitFor();
      assert.equal(injected.signed.length, 2);
      assert.match(page.url(), /#\/channels\/[^/]+\/backups$/);
      assertOnlyRefusals(page, [401]);
    });

    test('sign out revokes the message: its headers get 401 afterwards', async () => {
      const { page, injected } = await signedInPage(fixture.ownerWallet);
      const headers = headersOf(injected, 0);
      assert.equal((await fetch(`${svc.baseUrl}/api/auth/test`, { headers })).status, 200);
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      const after = await fetch(`${svc.baseUrl}/api/auth/test`, { headers });
      assert.equal(after.status, 401);
      assert.equal(((await after.json()) as { code: string }).code, 'AUTH_MESSAGE_REVOKED');
      assertNoConsoleErrors(page);
    });

    test('sign out everywhere ends every message of the admin, in this page and elsewhere; a new sign-in works', async () => {
      const member = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], channels: [fixture.channel] });
      // Another tool signed in as the same admin before: its message must stop working too.
      const elsewhere = apiAs(member.wallet);
      await elsewhere.authTest();
      const elsewhereHeaders = (await elsewhere.signedIn())!.headers;
      const { page, injected } = await signedInPage(member.wallet);
      const pageHeaders = headersOf(injected, 0);

      await page.getByRole('button', { name: 'Sign out everywhere…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
      await dialog.waitFor();
      assert.match(String(await dialog.textContent()), /stops working now, on every instance/);
      await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByText(/Signed out everywhere/).waitFor();

      for (const headers of [pageHeaders, elsewhereHeaders]) {
        const refused = await fetch(`${svc.baseUrl}/api/auth/test`, { headers: { ...headers } });
        assert.equal(refused.status, 401);
        assert.equal(((await refused.json()) as { code: string }).code, 'AUTH_MESSAGE_REVOKED');
      }
      await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      await page.getByRole('heading', { name: 'Who am I' }).waitFor();
      assertNoConsoleErrors(page);
    });

    test("403 and 404 show the problem's detail and code", async () => {
      const { page } = await signedInPage(fixture.ownerWallet, { hash: '#/channels/chn_0000000000000000000000000/folders' });
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.match(String(await alert.textContent()), /CHANNEL_NOT_FOUND/);
      assertOnlyRefusals(page, [404]);
    });

    // What the page does on its own with wallets and the keyboard is the same whatever the engine: on the first one only.
    const pageOnly = engine === ENGINES[0] ? test : () => undefined;

    pageOnly(
      'wallets: a choice when several announce themselves, window.ethereum as the fallback, a clear message when there is none',
      async () => {
        const two = await browser.newPage();
        await injectWallet(two, { privateKey: fixture.ownerWallet.privateKey, name: 'Wallet One', rdns: 'org.example.one' });
        await injectWallet(two, { privateKey: viewer.wallet.privateKey, name: 'Wallet Two', rdns: 'org.example.two' });
        await two.goto(`${svc.baseUrl}/console/`);
        await two.getByRole('button', { name: 'Sign in with Wallet One' }).waitFor();
        await two.getByRole('button', { name: 'Sign in with Wallet Two' }).click();
        await two.getByRole('heading', { name: 'Who am I' }).waitFor();
        await two.locator('dl').getByText(viewer.wallet.address).waitFor();
        assertNoConsoleErrors(two);

        const legacy = await browser.newPage();
        await injectWallet(legacy, {
          privateKey: fixture.ownerWallet.privateKey,
          name: 'Old Wallet',
          rdns: 'org.example.old',
          legacy: true,
        });
        await legacy.goto(`${svc.baseUrl}/console/`);
        await legacy.getByRole('button', { name: 'Sign in with Browser wallet' }).click();
        await legacy.getByRole('heading', { name: 'Who am I' }).waitFor();
        assertNoConsoleErrors(legacy);

        const none = await browser.newPage();
        await none.goto(`${svc.baseUrl}/console/`);
        await none.getByText('No browser wallet found.').waitFor();
        assert.equal(await none.getByRole('button', { name: /^Sign in with/ }).count(), 0);
        assertNoConsoleErrors(none);

        const declining = await browser.newPage();
        await injectWallet(declining, {
          privateKey: fixture.ownerWallet.privateKey,
          name: 'Test Wallet',
          rdns: 'org.example.testwallet',
          rejectSignatures: true,
        });
        await declining.goto(`${svc.baseUrl}/console/`);
        await declining.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
        await declining.getByRole('alert').getByText('The wallet declined to sign').waitFor();
        await declining.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
        assertNoConsoleErrors(declining);
      },
    );

    pageOnly('keyboard only: sign in, open a channel and a folder with Tab and Enter; focus is visible', async () => {
      const api = apiAs(fixture.ownerWallet);
      await api.upload(fixture.channel.id, 'keys', 'k.txt', 'k');
      const page = await browser.newPage();
      await injectWallet(page, { privateKey: fixture.ownerWallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
      await page.goto(`${svc.baseUrl}/console/`);
      await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
      const tabTo = async (name: RegExp) => {
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press('Tab');
          const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
          if (name.test(focused)) return;
        }
        assert.fail(`Tab never reached ${name}`);
      };
      await tabTo(/^Sign in with Test Wallet$/);
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement as Element).outlineStyle);
      assert.notEqual(outline, 'none', 'the focused control shows it');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Who am I' }).waitFor();
      await tabTo(/^main/);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Folders' }).waitFor();
      await tabTo(/^keys/);
      await page.keyboard.press('Enter');
      await page.getByRole('link', { name: 'k.txt' }).waitFor();
      assertNoConsoleErrors(page);
    });

    test('a folder of 1,000 files renders and pages', async () => {
      const api = apiAs(fixture.ownerWallet);
      for (let i = 0; i < 1000; i += 25) {
        await Promise.all(
          Array.from({ length: 25 }, (_, j) =>
            api.upload(fixture.channel.id, 'bulk', `file-${String(i + j).padStart(4, '0')}.txt`, `content ${i + j}`),
          ),
        );
      }
      const { page } = await signedInPage(fixture.ownerWallet, { hash: `#/channels/${fixture.channel.id}/folders/bulk` });
      const rows = page.locator('.files-table tbody tr');
      await page.getByRole('link', { name: 'file-0000.txt' }).waitFor();
      assert.equal(await rows.count(), 100);
      await page.getByRole('button', { name: 'Next →' }).click();
      await page.getByRole('link', { name: 'file-0100.txt' }).waitFor();
      assert.equal(await rows.count(), 100);
      await page.getByRole('button', { name: '← Previous' }).click();
      await page.getByRole('link', { name: 'file-0000.txt' }).waitFor();
      await page.getByLabel('Per page').selectOption('1000');
      await page.getByRole('link', { name: 'file-0999.txt' }).waitFor();
      assert.equal(await rows.count(), 1000);
      assert.equal(await page.getByRole('navigation', { name: 'Files pages' }).count(), 0, 'one page: no pager');
      assertNoConsoleErrors(page);
    });
    test('the audit log and the backups name admins by display name (the id on hover); each backup says truthfully what made it', async () => {
      const channel = fixture.channel.id;
      const robin = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['files:read', 'files:write', 'backups:create'],
        channels: [fixture.channel],
        displayName: 'Robin Writer',
      });
      await apiAs(robin.wallet).upload(channel, 'named', 'by-robin.txt', 'robin was here');
      // Backups of every origin, named by seconds of their own an hour ago so that no other test's backup takes them.
      const hourAgo = Date.now() - 3600_000;
      const backups = svc.service.files.backups;
      const byRobin = (await backups.create(fixture.channel, { adminId: robin.admin.id }, 'api', hourAgo)).timestamp;
      const byCli = (await backups.create(fixture.channel, { adminId: null }, 'cli', hourAgo + 1000)).timestamp;
      const bySchedule = (await backups.create(fixture.channel, { adminId: null }, 'schedule', hourAgo + 2000)).timestamp;
      // A backup of the release before origins were recorded: nothing says what made it.
      const older = formatBackupTimestamp(hourAgo + 3000);
      await svc.service.store.files.createBackup({
        channelId: channel,
        timestamp: older,
        createdBy: null,
        origin: null,
        createdAt: hourAgo,
      });

      const { page } = await signedInPage(fixture.ownerWallet, { hash: `#/channels/${channel}/backups` });
      const madeBy = async (timestamp: string) => {
        const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(timestamp) }) });
        // Its cells after the backup's own (a row header): files, size, made by.
        return (await row.getByRole('cell').nth(2).innerText()).replace(/\s+/g, ' ').trim();
      };
      await page.getByRole('rowheader', { name: new RegExp(older) }).waitFor();
      assert.equal(await madeBy(byRobin), 'Robin Writer in the console or the API');
      assert.equal(await madeBy(byCli), 'CLI wallet-admin backup create', 'not "Schedule": the CLI made it');
      assert.equal(await madeBy(bySchedule), 'Schedule every BACKUP_INTERVAL');
      assert.equal(await madeBy(older), 'Unknown', 'nothing claimed for a backup whose origin was never recorded');
      assert.equal(await page.getByText('Robin Writer', { exact: true }).first().getAttribute('title'), robin.admin.id);

      await page.getByRole('link', { name: 'Audit log' }).click();
      const upload = page.getByRole('row').filter({ hasText: 'named/by-robin.txt' });
      await upload.waitFor();
      const admin = upload.getByRole('link', { name: 'Robin Writer' });
      assert.match(String(await admin.getAttribute('title')), new RegExp(`^${robin.admin.id}\\b`), 'the id on hover');
      const table = await page.locator('.audit-table').innerText();
      assert.doesNotMatch(table, /adm_|ver_/, 'names and times, not ids, in the log');
      await admin.click();
      await page.waitForURL(new RegExp(`adminId=${robin.admin.id}`));
      await page.waitForFunction(() => document.querySelectorAll('.audit-table tbody tr').length === 2);
      assertNoConsoleErrors(page);
    });

    test('times keep their case and name their zone, in the history, the restore dialog and the status line; UTC on hover', async () => {
      const channel = fixture.channel.id;
      const api = apiAs(fixture.ownerWallet);
      await api.upload(channel, 'zoned', 'times.txt', 'at the backup');
      await nextSecond();
      const backup = (await api.createBackup(channel)).timestamp;
      await api.upload(channel, 'zoned', 'times.txt', 'later');

      const { page } = await signedInPage(fixture.ownerWallet, {
        hash: `#/channels/${channel}/folders/zoned/files/times.txt`,
        timezoneId: 'America/New_York',
        locale: 'en-US',
      });
      // "Nov 26, 2026, 5:23:26 AM EST": the month capitalised, AM/PM in capitals, the zone named.
      const time = String.raw`[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d:\d\d [AP]M (EST|EDT)`;
      const entry = page.locator('.timeline-item').filter({ has: page.locator('.badge-backup') });
      await entry.first().waitFor();
      const described = await entry.first().locator('strong').innerText();
      assert.match(described, new RegExp(`^Backup of ${time}$`));
      const stamp = entry.first().locator('strong time');
      assert.match(String(await stamp.getAttribute('title')), new RegExp(`^Backup ${backup} \\(UTC\\)$`));

      await page
        .getByRole('button', { name: /^Restore backup of / })
        .first()
        .click();
      const dialog = page.getByRole('dialog', { name: 'Restore times.txt?' });
      const said = (await dialog.innerText()).replace(/\s+/g, ' ');
      assert.match(said, new RegExp(`gets the bytes of the backup of ${time} `));
      assert.doesNotMatch(said, /\b(am|pm)\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec) \d/, 'nothing lowercased');
      const updated = dialog.locator('time');
      assert.match(String(await updated.getAttribute('title')), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z \(UTC\)$/);
      await dialog.getByRole('button', { name: 'Restore' }).click();
      const status = page.getByRole('status');
      await status.getByText(new RegExp(`^times\\.txt restored: backup of ${time}\\.$`)).waitFor();
      assert.equal(await (await api.download(channel, 'zoned', 'times.txt')).text(), 'at the backup');
      assertNoConsoleErrors(page);
    });

    test('the status line and upload rows last as long as what they say: a new dialog or another view starts without them', async () => {
      const channel = fixture.channel.id;
      await apiAs(fixture.ownerWallet).upload(channel, 'brief', 'stays.txt', 'stays');
      const { page } = await signedInPage(fixture.ownerWallet, { hash: `#/channels/${channel}/folders/brief` });
      const status = page.getByRole('status');
      const upload = (name: string) =>
        page.getByLabel('Files to upload to brief').setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from(name) });

      await upload('one.txt');
      await status.getByText('one.txt uploaded').waitFor();
      await page.getByRole('link', { name: 'one.txt' }).waitFor();
      assert.equal(await page.locator('.uploads li').count(), 0, 'the upload row went with the upload: the table lists the file');

      // A dialog opens for the next task: the line about the upload is gone.
      await page.getByRole('button', { name: 'Delete stays.txt' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete stays.txt?' });
      await dialog.waitFor();
      assert.equal((await status.innerText()).trim(), '', 'no banner under a new dialog');
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      await page.getByRole('button', { name: 'Delete one.txt' }).click();
      await page.getByRole('dialog', { name: 'Delete one.txt?' }).getByRole('button', { name: 'Delete' }).click();
      await status.getByText('one.txt deleted').waitFor();
      await status.getByRole('button', { name: 'Undo' }).waitFor();
      // Another view: the delete and its undo belong to this folder's page.
      await page.getByRole('link', { name: 'Backups' }).click();
      await page.getByRole('heading', { name: 'Backups' }).waitFor();
      assert.equal((await status.innerText()).trim(), '', 'no banner of another view');
      assert.deepEqual(failedRequests(page), [], 'the DELETE (204) too is read to its end');
      assertNoConsoleErrors(page);
    });

    test('a folder name the service refuses, a channel the admin cannot see: the answer, and no upload area, restore, tabs or forms', async () => {
      const channel = fixture.channel.id;
      const { page } = await signedInPage(fixture.ownerWallet, { hash: `#/channels/${channel}/folders/${encodeURIComponent('../etc')}` });
      await page.getByRole('alert').getByText('INVALID_PATH').waitFor();
      for (const name of ['Choose files…', 'Restore folder…']) assert.equal(await page.getByRole('button', { name }).count(), 0, name);
      assert.equal(await page.locator('.drop-zone').count(), 0, 'no upload area');
      assert.equal(await page.getByLabel('Per page').count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Deleted files' }).count(), 0);

      // Typed into New folder, the same name is refused where it was typed, and no folder page opens.
      await page.getByRole('link', { name: 'main' }).first().click();
      await page.getByRole('heading', { name: 'Folders' }).waitFor();
      await page.getByLabel('New folder').fill('../etc');
      await page.getByRole('button', { name: 'Open to upload' }).click();
      await page.getByRole('alert').getByText('INVALID_PATH').waitFor();
      assert.match(page.url(), /\/folders$/, 'still on the folders page');

      const unknown = 'chn_0000000000000000000000000';
      const go = (hash: string) =>
        page.evaluate((to) => {
          window.location.hash = to;
        }, hash);
      for (const view of ['folders', 'backups', 'audit', 'folders/docs']) {
        // From the home page each time, so that nothing of the previous view is still on screen.
        await go('#/');
        await page.getByRole('heading', { name: 'Who am I' }).waitFor();
        await go(`#/channels/${unknown}/${view}`);
        await page.getByRole('heading', { name: 'No such channel' }).waitFor();
        await page.getByRole('alert').getByText('CHANNEL_NOT_FOUND').waitFor();
        assert.equal(await page.getByRole('navigation', { name: 'Channel sections' }).count(), 0, `${view}: no tabs`);
        assert.equal(await page.locator('main form, main .drop-zone').count(), 0, `${view}: no forms`);
        assert.equal(await page.getByRole('button', { name: /Back up now|Apply filters|Restore folder…/ }).count(), 0, view);
      }
      assertOnlyRefusals(page, [400, 404]);
    });

    test("a file page's requests all complete: its HEAD is read to its end, never shown as cancelled", async () => {
      const channel = fixture.channel.id;
      await apiAs(fixture.ownerWallet).upload(channel, 'heads', 'h.txt', 'head me');
      const { page } = await signedInPage(fixture.ownerWallet);
      const heads: number[] = [];
      page.on('requestfinished', async (request) => {
        if (request.method() === 'HEAD') heads.push((await request.response())?.status() ?? 0);
      });
      await page.evaluate((hash) => {
        window.location.hash = hash;
      }, `#/channels/${channel}/folders/heads/files/h.txt`);
      await page.getByText('7 B').waitFor();
      await page.locator('.timeline-item, .timeline + p, main p').first().waitFor();
      // A file without a live version answers 404 to its HEAD: read to its end as well.
      await page.evaluate((hash) => {
        window.location.hash = hash;
      }, `#/channels/${channel}/folders/heads/files/none.txt`);
      await page.getByText('No live file has this name.').waitFor();
      await page.waitForFunction(() => document.querySelector('main')?.textContent?.includes('No version is kept yet'));
      assert.deepEqual(failedRequests(page), [], 'no request cancelled (net::ERR_ABORTED)');
      assert.deepEqual(heads.sort(), [200, 404]);
      assertOnlyRefusals(page, [404]);
    });

    pageOnly('Channels in the top bar lists the linked channels and opens one, as docs/console.md walks through', async () => {
      const { page } = await signedInPage(fixture.ownerWallet);
      await page.getByRole('heading', { name: 'Who am I' }).waitFor();
      const menu = page.getByRole('banner').locator('details.menu');
      await menu.getByText('Channels', { exact: true }).click();
      await menu.getByRole('list', { name: 'Your channels' }).getByRole('link', { name: 'main' }).click();
      await page.getByRole('heading', { name: 'Folders' }).waitFor();
      assert.equal(await menu.evaluate((details) => (details as HTMLDetailsElement).open), false, 'closed once a channel is chosen');
      await menu.getByText('Channels', { exact: true }).click();
      assert.equal(await menu.getByRole('link', { name: 'main' }).getAttribute('aria-current'), 'page', 'the channel on screen is marked');
      await page.keyboard.press('Escape');
      assert.equal(await menu.evaluate((details) => (details as HTMLDetailsElement).open), false, 'Escape closes it');
      assertNoConsoleErrors(page);
    });
  });
}
