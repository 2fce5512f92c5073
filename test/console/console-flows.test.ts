import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient, fromViemAccount } from '../../src/client/index.ts';
import { ENGINES } from '../helpers/backends.ts';
import { assertNoConsoleErrors, emulateColorScheme, injectWallet, type InjectedWallet, screenshot, useBrowser } from '../helpers/browser.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import type { TestWallet } from '../helpers/wallets.ts';

/**
 * What an admin does in the console, in Chromium, against the real service: the wallet is the
 * injected test wallet (real secp256k1 signatures), the service and its database are real.
 */
for (const engine of ENGINES) {
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

    async function signedInPage(wallet: TestWallet, options: { hash?: string; width?: number } = {}): Promise<{ page: Page; injected: InjectedWallet }> {
      const page = await browser.newPage({ width: options.width });
      const injected = await injectWallet(page, { privateKey: wallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
      await page.goto(`${svc.baseUrl}/console/${options.hash ?? ''}`);
      await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      return { page, injected };
    }

    test('sign in, upload, back up, change, restore from the backup, undo; the audit log shows all of it', async () => {
      const { page, injected } = await signedInPage(fixture.ownerWallet);
      assert.equal(injected.signed.length, 1, 'one signature for the session');
      const message = injected.signed[0]!.text;
      assert.match(message, new RegExp(`^${new URL(svc.baseUrl).host} wants you to sign in with your Ethereum account:\\n${fixture.ownerWallet.address}\\n`));
      assert.match(message, new RegExp(`\\nURI: ${svc.baseUrl}\\n`));
      assert.match(message, /\nChain ID: 1\n/);
      const issued = Date.parse(/\nIssued At: (\S+)/.exec(message)![1]!);
      const expires = Date.parse(/\nExpiration Time: (\S+)/.exec(message)![1]!);
      assert.equal(expires - issued, 8 * 3600 * 1000, 'a working day unless the admin picks another lifetime');

      // Who am I, and the channel.
      await page.getByRole('heading', { name: 'Who am I' }).waitFor();
      await page.getByText(fixture.ownerWallet.address).waitFor();
      await page.getByText(fixture.tenant.id).waitFor();
      await page.getByRole('link', { name: /main/ }).click();

      // A new folder comes with its first upload.
      await page.getByLabel('New folder').fill('reports');
      await page.getByRole('button', { name: 'Open to upload' }).click();
      await page.getByRole('heading', { name: 'reports' }).waitFor();
      await page.getByLabel('Files to upload to reports').setInputFiles({ name: 'q3.txt', mimeType: 'text/plain', buffer: Buffer.from('first draft') });
      await page.getByRole('link', { name: 'q3.txt' }).waitFor();
      await page.getByRole('status').getByText('q3.txt uploaded').waitFor();

      // Back up.
      await page.getByRole('link', { name: 'Backups' }).click();
      await page.getByRole('button', { name: 'Back up now' }).click();
      await page.getByRole('status').getByText(/^Backup \d{8}_\d{6} made: 1 files/).waitFor();
      const backups = await apiAs(fixture.ownerWallet).listBackups(fixture.channel.id);
      assert.equal(backups.items.length, 1);
      const backup = backups.items[0]!;
      await page.getByRole('rowheader', { name: new RegExp(backup.timestamp) }).waitFor();

      // Change the file: the upload replaces it.
      await page.goto(`${svc.baseUrl}/console/#/channels/${fixture.channel.id}/folders/reports`);
      await page.getByLabel('Files to upload to reports').setInputFiles({ name: 'q3.txt', mimeType: 'text/plain', buffer: Buffer.from('final, reviewed') });
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

    test('each main view, at 1440 and 360 px, light and dark: screenshots, no console errors', async () => {
      const api = apiAs(fixture.ownerWallet);
      // Some content worth looking at: two folders, a file with a backup and a replaced version.
      await api.upload(fixture.channel.id, 'contracts', 'supplier-agreement-2026.pdf', 'v1 of the agreement', 'application/pdf');
      await api.upload(fixture.channel.id, 'contracts', 'nda.pdf', 'nda', 'application/pdf');
      await api.createBackup(fixture.channel.id).catch(() => undefined);
      await api.upload(fixture.channel.id, 'contracts', 'supplier-agreement-2026.pdf', 'v2 of the agreement, signed', 'application/pdf');
      const channel = fixture.channel.id;
      const views: { name: string; hash: string; ready: (page: Page) => Promise<unknown> }[] = [
        { name: 'home', hash: '#/', ready: (page) => page.getByRole('link', { name: /main/ }).waitFor() },
        { name: 'folders', hash: `#/channels/${channel}/folders`, ready: (page) => page.getByRole('link', { name: /contracts/ }).waitFor() },
        { name: 'files', hash: `#/channels/${channel}/folders/contracts`, ready: (page) => page.getByRole('link', { name: 'nda.pdf' }).waitFor() },
        {
          name: 'file-history',
          hash: `#/channels/${channel}/folders/contracts/files/supplier-agreement-2026.pdf`,
          ready: (page) => page.locator('.timeline-item').first().waitFor(),
        },
        { name: 'backups', hash: `#/channels/${channel}/backups`, ready: (page) => page.locator('tbody tr').first().waitFor() },
        { name: 'audit', hash: `#/channels/${channel}/audit`, ready: (page) => page.locator('tbody tr').first().waitFor() },
      ];
      for (const scheme of ['light', 'dark'] as const) {
        const signIn = await browser.newPage();
        await injectWallet(signIn, { privateKey: fixture.ownerWallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
        await emulateColorScheme(signIn, scheme);
        await signIn.goto(`${svc.baseUrl}/console/`);
        await signIn.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
        for (const width of [1440, 360] as const) await screenshot(signIn, `sign-in-${scheme}`, { width });
        assertNoConsoleErrors(signIn);

        const { page } = await signedInPage(fixture.ownerWallet);
        await emulateColorScheme(page, scheme);
        for (const view of views) {
          await page.goto(`${svc.baseUrl}/console/${view.hash}`);
          await view.ready(page);
          for (const width of [1440, 360] as const) await screenshot(page, `${view.name}-${scheme}`, { width });
        }
        assertNoConsoleErrors(page);
      }
    });
  });
}
