import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient, fromViemAccount, type WalletAdminClient } from '../../src/client/index.ts';
import { ENGINES } from '../helpers/backends.ts';
import { assertNoConsoleErrors, consoleErrors, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { readZip } from '../helpers/zip.ts';

/** Point-in-time views of the console: a folder's deleted files, changes since a backup, folder and channel restore with their plan. */
for (const engine of ENGINES) {
  describe(`the console's history views on ${engine}`, () => {
    const browser = useBrowser();
    let svc: TestService;
    let fixture: TenantFixture;
    let api: WalletAdminClient;
    let backup: string;

    before(async () => {
      svc = await startTestService(engine, { transport: 'socket' });
      fixture = await createTenantFixture(svc.service.store, 'History');
      api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
      const channel = fixture.channel.id;
      await api.upload(channel, 'docs', 'a.txt', 'a at the backup');
      await api.upload(channel, 'docs', 'b.txt', 'b at the backup');
      await api.upload(channel, 'other', 'o.txt', 'outside the folder');
      await nextSecond();
      backup = (await api.createBackup(channel)).timestamp;
      await api.upload(channel, 'docs', 'a.txt', 'a changed later');
      await api.deleteFile(channel, 'docs', 'b.txt');
      await api.upload(channel, 'docs', 'c.txt', 'c added later');
      await api.upload(channel, 'other', 'o.txt', 'outside, changed later');
    });
    after(() => svc.close());

    const text = async (folder: string, filename: string) => (await api.download(fixture.channel.id, folder, filename)).text();

    test('a ZIP of a backup from the Backups tab, and of a folder from its page', async () => {
      const channel = fixture.channel.id;
      const { page: backupsPage } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, {
        hash: `#/channels/${channel}/backups`,
      });
      const zipOf = async (button: RegExp, page = backupsPage) => {
        const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()]);
        const bytes = Buffer.concat(await (await download.createReadStream()).toArray());
        const entries = await readZip(bytes);
        return { name: download.suggestedFilename(), files: Object.fromEntries([...entries].map(([path, entry]) => [path, entry.sha256])) };
      };
      const atBackup = await zipOf(new RegExp(`^Download backup ${backup} as a ZIP$`));
      assert.equal(atBackup.name, `main-${backup}.zip`);
      assert.deepEqual(atBackup.files, {
        'docs/a.txt': sha256('a at the backup'),
        'docs/b.txt': sha256('b at the backup'),
        'other/o.txt': sha256('outside the folder'),
      });
      assertNoConsoleErrors(backupsPage);
      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/docs` });
      const live = await zipOf(/^Download ZIP of the folder docs$/, page);
      assert.equal(live.name, 'main-docs.zip');
      assert.deepEqual(live.files, { 'docs/a.txt': sha256('a changed later'), 'docs/c.txt': sha256('c added later') });
      assertNoConsoleErrors(page);
    });

    test('the Folders page shows what the channel holds against its quota, and says when it is full', async () => {
      const channel = fixture.channel.id;
      const used = (await api.channelUsage(channel)).usage;
      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}` });
      const line = page.getByTestId('channel-usage');
      await line.waitFor();
      assert.match(
        await line.innerText(),
        new RegExp(`^${used.files} files, .* · live ${used.live.files}, kept versions ${used.kept.files}$`),
      );
      await api.setChannelQuota(channel, { maxBytes: used.bytes, maxFiles: null });
      assertNoConsoleErrors(page);
      const { page: again } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}` });
      await again
        .getByTestId('channel-usage')
        .getByText(/Full: uploads are refused until files are deleted; restores still run\./)
        .waitFor();
      await api.setChannelQuota(channel, { maxBytes: null, maxFiles: null });
      assertNoConsoleErrors(again);
    });

    test('changes since the backup, from the Backups tab', async () => {
      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${fixture.channel.id}/backups` });
      await page.getByRole('link', { name: 'Changes since' }).click();
      await page.getByRole('heading', { name: /^Changes since / }).waitFor();
      const rows = page.locator('.changes-table tbody tr');
      await rows.first().waitFor();
      const seen = await rows.evaluateAll((trs) =>
        trs.map((tr) =>
          Array.from((tr as HTMLTableRowElement).cells, (cell) => cell.textContent?.trim())
            .slice(0, 2)
            .join(' '),
        ),
      );
      assert.deepEqual(seen, ['Changed docs/a.txt', 'Deleted docs/b.txt', 'Added docs/c.txt', 'Changed other/o.txt']);
      assertNoConsoleErrors(page);
    });

    test('a folder restore: the plan first, nothing changed by it; the restore; undone in one step', async () => {
      const channel = fixture.channel.id;
      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/docs` });
      await page.getByRole('button', { name: 'Restore folder…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('combobox', { name: /^Backup/ }).selectOption(backup);
      await dialog.getByLabel(/Also delete files that did not exist/).check();
      await dialog.getByRole('button', { name: 'Preview the restore' }).click();
      const plan = dialog.getByRole('list', { name: 'Planned changes' });
      await plan.waitFor();
      // A preview, in the future tense: nothing has happened yet.
      assert.deepEqual(
        (await plan.getByRole('listitem').allTextContents()).map((item) => item.replace(/\s+/g, ' ').trim()),
        ['Will replace docs/a.txt', 'Will bring back docs/b.txt', 'Will delete docs/c.txt'],
      );
      await dialog.getByText(/^Nothing has changed yet\./).waitFor();
      assert.equal(await text('docs', 'a.txt'), 'a changed later', 'the plan changed nothing');

      // The button counts what it does: two files restored (replaced or brought back), one deleted.
      await dialog.getByRole('button', { name: 'Restore 2, delete 1', exact: true }).click();
      await page
        .getByRole('status')
        .getByText(/^The folder docs restored from the backup of .+: 1 replaced, 1 brought back, 1 deleted\./)
        .waitFor();
      assert.equal(await text('docs', 'a.txt'), 'a at the backup');
      assert.equal(await text('docs', 'b.txt'), 'b at the backup');
      assert.equal(await api.stat(channel, 'docs', 'c.txt'), undefined);
      assert.equal(await text('other', 'o.txt'), 'outside, changed later', 'nothing outside the folder touched');

      await page.getByRole('button', { name: 'Undo restore' }).click();
      await page.getByRole('status').getByText('Restore of the folder docs undone.').waitFor();
      assert.equal(await text('docs', 'a.txt'), 'a changed later');
      assert.equal(await text('docs', 'c.txt'), 'c added later');
      assert.equal(await api.stat(channel, 'docs', 'b.txt'), undefined);

      // The audit log shows the restore as one operation: its summary, and a link to everything it did.
      await page.evaluate((hash) => {
        window.location.hash = hash;
      }, `#/channels/${channel}/audit?action=restore&folder=docs`);
      // The undo (a folder restore from the safety backup) reads the same; the restore is the older row.
      const own = page.getByRole('row').filter({ hasText: 'folder: 1 replaced, 1 brought back, 1 deleted, 0 unchanged' }).last();
      await own.waitFor();
      await own.getByRole('link', { name: 'restore' }).click();
      await page
        .getByRole('note')
        .getByText(/One restore of a folder or channel/)
        .waitFor();
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length >= 5);
      // The Action cell of each row, its summary (on the restore's own event) left out.
      const actions = await page.evaluate(() =>
        Array.from(document.querySelectorAll('table tbody tr'), (row) => (row as HTMLTableRowElement).cells[1]!.firstChild!.textContent),
      );
      // Its own event, the safety backup, a restore per replaced or brought-back file and the delete: nothing else.
      assert.deepEqual([...actions].sort(), ['backup', 'delete', 'restore', 'restore', 'restore'], actions.join(' | '));

      assertNoConsoleErrors(page);
    });

    test('deleted files of a folder, brought back with one click', async () => {
      const channel = fixture.channel.id;
      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/docs` });
      await page.getByRole('link', { name: 'Deleted files' }).click();
      await page.getByRole('heading', { name: 'Deleted from docs' }).waitFor();
      await page.getByRole('rowheader', { name: /b\.txt/ }).waitFor();
      await page.getByRole('button', { name: 'Restore b.txt' }).click();
      await page.getByRole('status').getByText('b.txt restored to docs.').waitFor();
      await page.getByText('Nothing deleted from this folder can be brought back.').waitFor();
      assert.equal(await text('docs', 'b.txt'), 'b at the backup');
      assertNoConsoleErrors(page);
    });

    test('a channel restore from the Backups tab: its plan covers every folder', async () => {
      const channel = fixture.channel.id;
      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/backups` });
      await page.getByRole('button', { name: `Restore the channel from backup ${backup}` }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Preview the restore' }).click();
      const plan = dialog.getByRole('list', { name: 'Planned changes' });
      await plan.waitFor();
      const items = (await plan.getByRole('listitem').allTextContents()).map((item) => item.replace(/\s+/g, ' ').trim());
      assert.ok(items.includes('Will replace other/o.txt'), items.join(', '));
      await dialog.getByRole('button', { name: /^Restore \d+ files?$/ }).click();
      await page
        .getByRole('status')
        .getByText(/^The whole channel restored from the backup of /)
        .waitFor();
      assert.equal(await text('other', 'o.txt'), 'outside the folder');
      assertNoConsoleErrors(page);
    });

    test('a folder changed after its plan was shown: nothing restored, the new plan shown, then restored as shown', async () => {
      const channel = fixture.channel.id;
      // After the channel restore above, docs is as at the backup: one change makes a plan of one file.
      await api.upload(channel, 'docs', 'a.txt', 'a, edited again');
      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash: `#/channels/${channel}/folders/docs` });
      await page.getByRole('button', { name: 'Restore folder…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('combobox', { name: /^Backup/ }).selectOption(backup);
      await dialog.getByRole('button', { name: 'Preview the restore' }).click();
      const plan = dialog.getByRole('list', { name: 'Planned changes' });
      const planned = async () => (await plan.getByRole('listitem').allTextContents()).map((item) => item.replace(/\s+/g, ' ').trim());
      await plan.waitFor();
      assert.deepEqual(await planned(), ['Will replace docs/a.txt']);

      // Someone else writes to the folder while the admin reads the plan.
      await api.upload(channel, 'docs', 'b.txt', 'b, edited while the plan was open');
      await dialog.getByRole('button', { name: 'Restore 1 file' }).click();
      await dialog.getByRole('alert').getByText('The folder docs changed since the plan you reviewed, so nothing was restored.').waitFor();
      await dialog.getByRole('button', { name: 'Restore 2 files' }).waitFor();
      assert.deepEqual(await planned(), ['Will replace docs/a.txt', 'Will replace docs/b.txt']);
      assert.equal(await text('docs', 'a.txt'), 'a, edited again', 'nothing restored');

      await dialog.getByRole('button', { name: 'Restore 2 files' }).click();
      await page
        .getByRole('status')
        .getByText(/^The folder docs restored from the backup of .+: 2 replaced\./)
        .waitFor();
      assert.equal(await text('docs', 'a.txt'), 'a at the backup');
      assert.equal(await text('docs', 'b.txt'), 'b at the backup');
      // The browser logs the refused request; nothing else went wrong.
      assert.deepEqual(
        consoleErrors(page).filter(
          (line) => !/^console\.error: Failed to load resource: the server responded with a status of 412 /.test(line),
        ),
        [],
      );
    });
    test("the audit log shows a restore to an instant by the instant asked for, in the admin's zone; the version it found on hover", async () => {
      const channel = fixture.channel.id;
      await api.upload(channel, 'moments', 'm.txt', 'first');
      await sleep(20);
      const at = new Date().toISOString();
      await sleep(20);
      await api.upload(channel, 'moments', 'm.txt', 'second');
      await api.restore(channel, 'moments', 'm.txt', { at });
      assert.equal(await text('moments', 'm.txt'), 'first');

      const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, {
        hash: `#/channels/${channel}/audit?action=restore&filename=m.txt`,
        timezoneId: 'Asia/Tokyo',
        locale: 'en-US',
      });
      const row = page.locator('.audit-table tbody tr').first();
      await row.waitFor();
      // Its cells: when, action, result, file, admin, backup or version.
      const source = row.locator('td').nth(5);
      const said = await source.innerText();
      assert.match(said, /^State at [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d\d:\d\d [AP]M GMT\+9$/);
      assert.doesNotMatch(said, /ver_/, 'the instant, not the id of the version it found');
      assert.equal(Date.parse(String(await source.locator('time').getAttribute('datetime'))), Date.parse(at));
      assert.match(String(await source.locator('[title^="Found there"]').getAttribute('title')), /^Found there: version ver_/);
      assertNoConsoleErrors(page);
    });
  });
}
