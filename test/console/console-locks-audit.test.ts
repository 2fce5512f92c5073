import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient, fromViemAccount, type WalletAdminClient } from '../../src/client/index.ts';
import { consoleErrors, screenshot, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** One zone and language for the pictures, whatever the machine's: times show their zone. */
const LOCALE = { timezoneId: 'Europe/Berlin', locale: 'en-US' };

/**
 * The Backups tab's locks and the tenant log's verification, as an owner uses them: lock a backup,
 * be refused its delete, hold and release another, see a policy hold a delete as a proposal, then
 * check the whole log in the browser.
 */
describe('backup locks and the verifiable audit log in the console', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  /** The owner's own API client, beside the browser: backups to lock, a policy, an approval, the export. */
  let api: WalletAdminClient;
  let older: string;
  let newer: string;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Locks');
    api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    await api.upload(fixture.channel.id, 'docs', 'note.txt', 'the note at the older backup');
    older = (await api.createBackup(fixture.channel.id)).timestamp;
    await nextSecond();
    await api.upload(fixture.channel.id, 'docs', 'note.txt', 'the note, changed');
    newer = (await api.createBackup(fixture.channel.id)).timestamp;
    // A file restored from the older backup: the tenant log names its file and backup.
    await api.restore(fixture.channel.id, 'docs', 'note.txt', { backupTimestamp: older });
  });
  after(() => svc.close());

  test('lock (the cap explained), delete refused, legal hold on and off; a held delete shows its proposal; the log verifies', async () => {
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, {
      ...LOCALE,
      hash: `#/channels/${fixture.channel.id}/backups`,
    });
    /** The console's scripts the page fetched, by name: the verifier's must come only when asked for. */
    const scripts: string[] = [];
    page.on('request', (request) => {
      const match = /\/console\/assets\/([^/?]+\.js)$/.exec(request.url());
      if (match) scripts.push(match[1]!);
    });
    const rowOf = (timestamp: string) => page.getByRole('row').filter({ has: page.getByText(timestamp, { exact: true }) });
    await rowOf(older).getByText('Not locked').waitFor();

    // A date beyond the cap is refused, saying how far a lock may go; the latest day allowed is then taken.
    await page.getByRole('button', { name: `Lock backup ${older}` }).click();
    const lock = page.getByRole('dialog');
    assert.equal(await lock.getByRole('radio', { name: /Governance/ }).isChecked(), true);
    await lock.getByLabel(/Locked until/).fill('2099-01-01');
    await lock.getByRole('button', { name: 'Lock', exact: true }).click();
    await lock.getByRole('alert').getByText('LOCK_TOO_LONG').waitFor();
    await lock.getByText(/At most 365 days ahead here/).waitFor();
    await lock.getByRole('button', { name: 'Use the latest day' }).click();
    await lock.getByRole('button', { name: 'Lock', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(new RegExp(`Backup ${older} is locked \\(governance\\) until`))
      .waitFor();
    await rowOf(older)
      .getByText(/^Governance until /)
      .waitFor();
    assert.equal((await api.listBackups(fixture.channel.id)).items.find((b) => b.timestamp === older)?.lock?.mode, 'governance');

    // Its delete would be refused (409 BACKUP_LOCKED), so it is not offered: the button is disabled, and says why beside it.
    const deleteOlder = page.getByRole('button', { name: `Delete backup ${older}` });
    assert.equal(await deleteOlder.isDisabled(), true);
    const lockedUntil = (await api.listBackups(fixture.channel.id)).items.find((b) => b.timestamp === older)?.lock?.until;
    const olderReason = rowOf(older).locator(`#${await deleteOlder.getAttribute('aria-describedby')}`);
    assert.match(await olderReason.innerText(), /^Cannot be deleted: locked until \w{3} \d+, \d{4}, .*GMT\+\d\.$/);
    assert.equal(
      await olderReason.locator('time').getAttribute('datetime'),
      new Date(lockedUntil ?? NaN).toISOString().replace(/\.000Z$/, 'Z'),
    );
    assert.equal(await page.getByRole('button', { name: `Delete backup ${newer}` }).isDisabled(), false);

    // A legal hold on the other backup: its delete is disabled too, saying so; the pictures show both kinds of lock.
    await page.getByRole('button', { name: `Put backup ${newer} under legal hold` }).click();
    await rowOf(newer).getByText('Legal hold', { exact: true }).waitFor();
    await rowOf(newer).getByText('Cannot be deleted: under legal hold until an owner releases it.').waitFor();
    assert.equal(await page.getByRole('button', { name: `Delete backup ${newer}` }).isDisabled(), true);
    await screenshots(page, 'backup-locks');
    await page.getByRole('button', { name: `Release the legal hold on backup ${newer}` }).click();
    await page.getByRole('status').getByText(`The legal hold on backup ${newer} is released.`).waitFor();
    await rowOf(newer).getByText('Not locked').waitFor();
    assert.equal(await page.getByRole('button', { name: `Delete backup ${newer}` }).isDisabled(), false);
    assert.ok(
      (await api.listBackups(fixture.channel.id)).items.some((b) => b.timestamp === older),
      'the locked backup is still there',
    );

    // Under a policy, a delete is a proposal: the page says it needs approval and links to it, and nothing went.
    await api.putPolicy([{ operation: 'backup.delete', approvals: 1, permission: 'backups:delete' }]);
    await page.getByRole('button', { name: `Delete backup ${newer}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete backup' }).click();
    const held = page.getByRole('status').filter({ hasText: 'Needs approval:' });
    await held.getByText(/0 of 1 approval needed/).waitFor();
    const proposalId = (await held.locator('code').first().textContent())!;
    assert.match(proposalId, /^prp_/);
    const link = held.getByRole('link', { name: 'Open the proposal' });
    assert.equal(await link.getAttribute('href'), `#/proposals/${proposalId}`);
    assert.ok(
      (await api.listBackups(fixture.channel.id)).items.some((b) => b.timestamp === newer),
      'nothing deleted yet',
    );

    // The owner signs the intent (here with the API client): the delete runs, its entry carries the intent.
    assert.equal((await api.approveProposal(proposalId, fromViemAccount(fixture.ownerWallet.account))).status, 'executed');
    await page.getByRole('banner').getByRole('link', { name: 'Tenant log' }).click();
    const log = page.locator('.tenant-audit-table tbody');
    // The delete's entry, and the proposal's run beside it, carry the intent.
    const signedRow = log
      .getByRole('row')
      .filter({ has: page.getByText('Signed by 1 admin') })
      .filter({ has: page.getByRole('link', { name: 'backup.delete', exact: true }) });
    await log
      .getByRole('row')
      .filter({ has: page.getByText('Signed by 1 admin') })
      .filter({ has: page.getByRole('link', { name: 'proposal.execute', exact: true }) })
      .waitFor();
    await signedRow.getByText('Signed by 1 admin').click();
    const approvals = signedRow.getByRole('list', { name: 'Approvals' });
    await approvals.getByText('Locks owner').waitFor();
    await approvals.getByText('wallet key (EOA)').waitFor();
    await signedRow.getByRole('link', { name: proposalId }).waitFor();
    // File, restore and backup events name their file and backup, as the channel's log does.
    const rowsOf = (action: string) => log.getByRole('row').filter({ has: page.getByRole('link', { name: action, exact: true }) });
    const what = (action: string) => rowsOf(action).first().locator('td').last();
    await what('restore').getByRole('link', { name: 'docs/note.txt' }).waitFor();
    assert.match(await what('restore').innerText(), /^docs\/note\.txt\s+Backup of \w{3} \d+, \d{4}, /);
    assert.equal(await what('restore').locator('time').getAttribute('datetime'), instantOf(older));
    await what('upload').getByRole('link', { name: 'docs/note.txt' }).waitFor();
    assert.match(await what('backup').innerText(), /^Backup of \w{3} \d+, \d{4}, /);
    assert.equal(await what('backup').locator('time').getAttribute('datetime'), instantOf(newer));
    // The file's link filters the log by that file.
    assert.equal(
      await what('upload').getByRole('link', { name: 'docs/note.txt' }).getAttribute('href'),
      '#/audit?folder=docs&filename=note.txt',
    );

    // The lock change in words.
    await log
      .getByRole('row')
      .filter({ has: page.getByRole('link', { name: 'backup.lock', exact: true }) })
      .getByText(/^not locked$/)
      .first()
      .waitFor();

    // Verify the log: the export, checked in the browser, every entry and the intent.
    const verify = page.getByRole('region', { name: 'Verify the log' });
    const fetchedBefore = scripts.length;
    await verify.getByRole('button', { name: 'Verify the log' }).click();
    const verified = verify.getByRole('status').filter({ hasText: 'Verified:' });
    await verified.waitFor();
    const lines = (await api.exportTenantAudit()).trim().split('\n').length;
    await verified.getByText(`Verified: ${lines} entries`, { exact: true }).waitFor();
    await verified.getByText(/2 entries carry signed intents: 2 signatures verified, every quorum met/).waitFor();
    assert.ok(scripts.length > fetchedBefore, `the verifier's scripts are fetched when it is asked for (${scripts.join(', ')})`);
    const head = await api.auditHead();
    assert.equal(head.seq, lines);
    assert.equal(await verified.getByLabel('Head to publish').inputValue(), JSON.stringify({ seq: head.seq, hash: head.hash }));
    await screenshots(page, 'audit-verify');

    // A head published earlier must be reached unchanged: a wrong one fails, naming the entry.
    await verify.getByLabel('A head published earlier (optional)').fill(JSON.stringify({ seq: 2, hash: 'f'.repeat(64) }));
    await verify.getByRole('button', { name: 'Verify the log' }).click();
    const failed = verify.getByRole('alert');
    await failed.getByText('Not verified: the log was changed.').waitFor();
    await failed.getByText(/The first entry that fails is seq 2 .*not the published head's/).waitFor();

    // The browser logs each refused answer ("Failed to load resource"): the 400 provoked, nothing else.
    const refusal = /^console\.error: Failed to load resource: the server responded with a status of 400 /;
    assert.deepEqual(
      consoleErrors(page).filter((line) => !refusal.test(line)),
      [],
    );
    assert.equal(consoleErrors(page).length, 1, consoleErrors(page).join('\n'));
  });
});

/** A backup's name (yyyyMMdd_HHmmss, UTC) as the instant a page's <time> names. */
function instantOf(stamp: string): string {
  const [, y, mo, d, h, mi, sec] = /^(\d{4})(\d\d)(\d\d)_(\d\d)(\d\d)(\d\d)$/.exec(stamp)!;
  return `${y}-${mo}-${d}T${h}:${mi}:${sec}Z`;
}

/** The page at a desktop's and a small phone's width, then back to the desktop's. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const width of [1440, 360] as const) await screenshot(page, name, { width });
  await page.setViewportSize({ width: 1440, height: 900 });
}
