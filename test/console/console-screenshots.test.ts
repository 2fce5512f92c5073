import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient, fromViemAccount } from '../../src/client/index.ts';
import { assertNoConsoleErrors, emulateColorScheme, injectWallet, screenshot, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * The pictures of the console in docs/console.md: each main view at 1440 and 390 px, light and dark.
 * `npm run screenshots` writes them to docs/console; `npm test` to .cache/screenshots. Once, on
 * the embedded default: the page is the same on either engine.
 */
/** One zone and language for every picture, whatever the machine's: times show their zone. */
const LOCALE = { timezoneId: 'Europe/Berlin', locale: 'en-US' };

describe("the console's views", () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Console');
  });
  after(() => svc.close());

  test('each main view, at 1440 and 390 px, light and dark: screenshots, no console errors', async () => {
    const api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    const colleague = await createMemberAdmin(svc.service.store, fixture, {
      permissions: ['files:read', 'files:write', 'files:restore', 'backups:create'],
      channels: [fixture.channel],
      displayName: 'Dana Reviewer',
    });
    const asColleague = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(colleague.wallet.account) });
    const channel = fixture.channel.id;
    // Some content worth looking at: two folders, a file with a backup and a replaced version, a
    // backup of each origin, a restore to an instant, and two admins with names.
    await api.upload(channel, 'contracts', 'supplier-agreement-2026.pdf', 'v1 of the agreement', 'application/pdf');
    await api.upload(channel, 'contracts', 'nda.pdf', 'nda', 'application/pdf');
    await api.upload(channel, 'contracts', 'draft-terms.docx', 'old terms');
    await api.upload(channel, 'invoices', 'invoice-2026-11.pdf', 'invoice', 'application/pdf');
    await svc.service.files.backups.create(fixture.channel, { adminId: null }, 'schedule');
    await nextSecond();
    const backup = (await api.createBackup(channel)).timestamp;
    const beforeSigning = new Date().toISOString();
    await nextSecond();
    await asColleague.upload(channel, 'contracts', 'supplier-agreement-2026.pdf', 'v2 of the agreement, signed', 'application/pdf');
    await asColleague.deleteFile(channel, 'contracts', 'draft-terms.docx');
    await asColleague.upload(channel, 'invoices', 'invoice-2026-11.pdf', 'invoice, corrected', 'application/pdf');
    await api.upload(channel, 'contracts', 'pricing-2027.pdf', 'new prices', 'application/pdf');
    await svc.service.files.backups.create(fixture.channel, { adminId: null }, 'cli');
    await asColleague.restore(channel, 'invoices', 'invoice-2026-11.pdf', { at: beforeSigning });
    const views: { name: string; hash: string; ready: (page: Page) => Promise<unknown> }[] = [
      { name: 'home', hash: '#/', ready: (page) => page.getByRole('link', { name: /main/ }).waitFor() },
      {
        name: 'channels-menu',
        hash: `#/channels/${channel}/folders`,
        ready: async (page) => {
          await page.getByRole('link', { name: /contracts/ }).waitFor();
          await page.getByRole('banner').getByText('Channels', { exact: true }).click();
          await page.getByRole('list', { name: 'Your channels' }).waitFor();
        },
      },
      {
        name: 'folders',
        hash: `#/channels/${channel}/folders`,
        ready: (page) => page.getByRole('link', { name: /contracts/ }).waitFor(),
      },
      {
        name: 'files',
        hash: `#/channels/${channel}/folders/contracts`,
        ready: (page) => page.getByRole('link', { name: 'nda.pdf' }).waitFor(),
      },
      {
        name: 'file-history',
        hash: `#/channels/${channel}/folders/contracts/files/supplier-agreement-2026.pdf`,
        ready: (page) => page.locator('.timeline-item').first().waitFor(),
      },
      { name: 'backups', hash: `#/channels/${channel}/backups`, ready: (page) => page.locator('tbody tr').first().waitFor() },
      { name: 'audit', hash: `#/channels/${channel}/audit`, ready: (page) => page.locator('tbody tr').first().waitFor() },
      {
        name: 'deleted',
        hash: `#/channels/${channel}/folders/contracts/deleted`,
        ready: (page) => page.getByRole('rowheader', { name: /draft-terms\.docx/ }).waitFor(),
      },
      {
        name: 'changes',
        hash: `#/channels/${channel}/changes?from=${backup}`,
        ready: (page) => page.locator('.changes-table tbody tr').first().waitFor(),
      },
      {
        name: 'folder-restore-plan',
        hash: `#/channels/${channel}/folders/contracts`,
        ready: async (page) => {
          await page.getByRole('button', { name: 'Restore folder…' }).click();
          await page
            .getByRole('dialog')
            .getByRole('combobox', { name: /^Backup/ })
            .selectOption(backup);
          await page.getByRole('dialog').getByRole('button', { name: 'Preview the restore' }).click();
          await page.getByRole('list', { name: 'Planned changes' }).waitFor();
        },
      },
    ];
    for (const scheme of ['light', 'dark'] as const) {
      const signIn = await browser.newPage(LOCALE);
      await injectWallet(signIn, { privateKey: fixture.ownerWallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
      await emulateColorScheme(signIn, scheme);
      await signIn.goto(`${svc.baseUrl}/console/`);
      await signIn.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
      for (const width of [1440, 390] as const) await screenshot(signIn, `sign-in-${scheme}`, { width });
      assertNoConsoleErrors(signIn);

      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, LOCALE);
      await emulateColorScheme(page, scheme);
      for (const view of views) {
        await page.goto(`${svc.baseUrl}/console/${view.hash}`);
        await view.ready(page);
        for (const width of [1440, 390] as const) await screenshot(page, `${view.name}-${scheme}`, { width });
      }
      assertNoConsoleErrors(page);
    }
  });
});
