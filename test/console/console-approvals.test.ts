import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient, fromViemAccount, type WalletAdminClient } from '../../src/client/index.ts';
import { assertNoConsoleErrors, consoleErrors, screenshot, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** One zone and language for the pictures, whatever the machine's: times show their zone. */
const LOCALE = { timezoneId: 'Europe/Berlin', locale: 'en-US' };

/** The intent's fields the approve dialog shows, verbatim, beside what the wallet signs (docs/approvals.md). */
const CHECKED_FIELDS = ['operation', 'channel', 'scope', 'source', 'delete', 'target', 'details', 'deadline'];

/**
 * Issue 28 as a new user tries it: a 2-of-2 policy on a channel's restores set in the console, a
 * channel restore proposed (and signed) in one browser, nothing changed until a second admin, in a
 * browser of their own, reads the same fields and signs too; then the restore has run.
 */
describe('approving a held channel restore in the console', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  let api: WalletAdminClient;
  let second: Awaited<ReturnType<typeof createMemberAdmin>>;
  let backup: string;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Approvals');
    second = await createMemberAdmin(svc.service.store, fixture, {
      permissions: ['files:read', 'files:restore'],
      channels: [fixture.channel],
      displayName: 'Sam Second',
    });
    api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    const channel = fixture.channel.id;
    await api.upload(channel, 'docs', 'plan.txt', 'plan at the backup');
    await api.upload(channel, 'docs', 'gone.txt', 'deleted after the backup');
    await nextSecond();
    backup = (await api.createBackup(channel)).timestamp;
    await api.upload(channel, 'docs', 'plan.txt', 'plan, overwritten by a thief');
    await api.deleteFile(channel, 'docs', 'gone.txt');
    await api.upload(channel, 'docs', 'planted.txt', 'added after the backup');
  });
  after(() => svc.close());

  const liveFiles = async () => (await api.listFiles(fixture.channel.id, 'docs')).items.map((file) => file.filename).sort();
  const text = async (filename: string) => (await api.download(fixture.channel.id, 'docs', filename)).text();

  test('owner sets 2-of-2 on channel restores, proposes and signs; the second admin sees the same fields, approves, and it runs', async () => {
    const channel = fixture.channel.id;

    // The owner sets the channel's policy in Channel settings: channel.restore, 2 approvals of files:restore.
    const { page: owner, injected: ownerWallet } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, {
      ...LOCALE,
      hash: '#/channel-settings',
    });
    await owner.getByRole('button', { name: 'Policy of main' }).click();
    const policyDialog = owner.getByRole('dialog', { name: 'Policy of main' });
    await policyDialog.getByRole('button', { name: 'Add a rule' }).click();
    const rule = policyDialog.getByRole('list', { name: 'Rules' }).getByRole('listitem').first();
    await rule.getByLabel('Operation').selectOption('channel.restore');
    await rule.getByLabel('Of admins with').selectOption('files:restore');
    // Three approvals of the two admins who hold files:restore: refused, the policy as it was.
    await rule.getByLabel('Approvals').fill('3');
    await policyDialog.getByRole('button', { name: 'Save the policy' }).click();
    await policyDialog.getByRole('alert').getByText('POLICY_UNSATISFIABLE').waitFor();
    await screenshots(owner, 'policy-editor');
    await rule.getByLabel('Approvals').fill('2');
    assert.equal(await policyDialog.getByRole('alert').count(), 0, 'the refusal was of the rules sent, not of these');
    await policyDialog.getByRole('button', { name: 'Save the policy' }).click();
    await policyDialog.getByRole('status').getByText('Saved.').waitFor();
    await policyDialog.getByRole('button', { name: 'Close' }).click();

    // The owner asks for a channel restore with delete: held, and the owner signs its own intent at once.
    // (By the fragment: a reload would sign the page out, its signed message lives in its memory only.)
    await owner.evaluate((hash) => {
      window.location.hash = hash;
    }, `#/channels/${channel}/backups`);
    await owner.getByRole('button', { name: `Restore the channel from backup ${backup}` }).click();
    const restore = owner.getByRole('dialog');
    await restore.getByRole('checkbox', { name: /Also delete files/ }).check();
    await restore.getByRole('button', { name: 'Preview the restore' }).click();
    await restore.getByRole('list', { name: 'Planned changes' }).waitFor();
    await restore.getByRole('button', { name: 'Restore 2, delete 1' }).click();
    const held = owner.getByRole('dialog', { name: 'Needs approval' });
    await held.getByText(/^Needs approval:/).waitFor();
    const proposalId = (await held.locator('.notice-held code').first().textContent()) ?? '';
    assert.match(proposalId, /^prp_/);
    const ownerFields = await shownFields(held);
    await held.getByRole('button', { name: 'Sign my approval' }).click();
    await owner
      .getByRole('dialog', { name: 'Approval recorded' })
      .getByText(/^Pending: 1 of 2 approvals/)
      .waitFor();

    // What the wallet signed is exactly the proposal's typed data, and the page showed its fields verbatim.
    assert.equal(ownerWallet.signedTypedData.length, 1);
    const signed = ownerWallet.signedTypedData[0]!.typedData as { primaryType: string; message: Record<string, unknown> };
    assert.equal(signed.primaryType, 'Intent');
    assert.equal(signed.message.proposal, proposalId);
    assert.equal(signed.message.operation, 'channel.restore');
    assert.equal(signed.message.delete, true);
    assert.deepEqual(ownerFields, fieldsOf(signed.message));

    // Pending: nothing has changed in the channel.
    assert.deepEqual(await liveFiles(), ['plan.txt', 'planted.txt']);
    assert.equal(await text('plan.txt'), 'plan, overwritten by a thief');
    await owner.getByRole('dialog', { name: 'Approval recorded' }).getByRole('button', { name: 'Close' }).click();

    // The owner's Proposals page: the proposal, its plan, who approved and who may, by name.
    await owner.getByRole('banner').getByRole('link', { name: 'Proposals (1 pending)' }).click();
    const ownersCard = owner.getByRole('article', { name: /Restore/ });
    await ownersCard.getByText(/^Pending: 1 of 2 approvals/).waitFor();
    await ownersCard.getByRole('list', { name: 'Approved by' }).getByText(fixture.owner.displayName).waitFor();
    await ownersCard.getByRole('list', { name: 'May approve' }).getByText('Sam Second').waitFor();
    await ownersCard.getByRole('list', { name: 'Planned changes' }).waitFor();
    // The rules that hold it: the channel's own, which the owner set, and the tenant's (none for this operation).
    const rules = ownersCard.getByRole('list', { name: 'Rules' });
    await rules.getByText(/^main's policy: channel\.restore needs 2 approvals of admins with files:restore$/).waitFor();
    await rules.getByText(/^The tenant's policy: no rule for channel\.restore$/).waitFor();
    assert.equal(await ownersCard.getByRole('button', { name: 'Approve…' }).count(), 0, 'the owner approved already');
    await ownersCard.getByRole('button', { name: /^Withdraw proposal/ }).waitFor();
    await screenshots(owner, 'proposals');

    // The second admin, in a browser of their own, sees one pending proposal, opens it, and reads the same fields.
    // (A sub-admin lists no admin above it, yet the proposal names its own admins: the owner by name.)
    const { page: other, injected: otherWallet } = await openSignedIn(browser, svc.baseUrl, second.wallet, LOCALE);
    await other.getByRole('banner').getByRole('link', { name: 'Proposals (1 pending)' }).click();
    const card = other.getByRole('article', { name: /Restore/ });
    await card.getByText(/^Pending: 1 of 2 approvals/).waitFor();
    await card.getByRole('list', { name: 'Approved by' }).getByText(fixture.owner.displayName).waitFor();
    await card.getByRole('list', { name: 'Planned changes' }).waitFor();
    await card.getByRole('button', { name: 'Approve…' }).click();
    const approve = other.getByRole('dialog', { name: 'Approve this proposal?' });
    assert.deepEqual(await shownFields(approve), ownerFields, 'the second admin is shown what the owner signed');
    await approve.getByRole('button', { name: 'Sign with Test Wallet' }).click();
    await other
      .getByRole('dialog', { name: 'Approval recorded' })
      .getByText(/^Done: it ran/)
      .waitFor();
    assert.deepEqual(otherWallet.signedTypedData[0]?.typedData, ownerWallet.signedTypedData[0]?.typedData);

    // Executed: the channel is as at the backup, the planted file deleted.
    assert.deepEqual(await liveFiles(), ['gone.txt', 'plan.txt']);
    assert.equal(await text('plan.txt'), 'plan at the backup');
    assert.equal(await text('gone.txt'), 'deleted after the backup');

    // The proposal is closed: among the executed ones, no longer pending.
    await other.getByRole('dialog', { name: 'Approval recorded' }).getByRole('button', { name: 'Close' }).click();
    await other.getByText('No proposal is waiting for approval.').waitFor();
    await other.getByLabel('Status').selectOption('executed');
    const executed = other.getByRole('article', { name: /Restore/ });
    await executed.getByText(/^Done: it ran/).waitFor();

    // What it did, the safety backup it took first, and an undo: that backup restored to the channel, deleting what it lacks.
    const { safetyBackup, ...counts } = (await api.getProposal(proposalId)).result as { safetyBackup: string };
    assert.match(safetyBackup, /^\d{8}_\d{6}$/);
    assert.deepEqual(counts, { replaced: 1, created: 1, deleted: 1, unchanged: 0 });
    await executed.getByText('1 replaced, 1 brought back, 1 deleted, 0 unchanged', { exact: true }).waitFor();
    await executed.getByText(safetyBackup, { exact: true }).waitFor();
    await executed.getByRole('button', { name: 'Undo restore…' }).click();
    await other.getByRole('dialog', { name: 'Undo this restore?' }).getByRole('button', { name: 'Undo restore' }).click();
    // The undo is a channel restore too, which the 2-of-2 rule holds: a new proposal, nothing changed yet.
    const undoHeld = other.getByRole('status').filter({ hasText: /^The undo of the restore of the whole channel main held for approval/ });
    await undoHeld.getByRole('button', { name: 'Open the proposal' }).waitFor();
    const undo = (await api.listProposals({ status: 'pending' })).items;
    assert.equal(undo.length, 1);
    assert.equal(undo[0]!.operation, 'channel.restore');
    assert.deepEqual([undo[0]!.plan.backupTimestamp, undo[0]!.plan.delete, undo[0]!.plan.folder], [safetyBackup, true, null]);
    assert.deepEqual(await liveFiles(), ['gone.txt', 'plan.txt']);
    // Its proposer, the second admin, takes it back: the next test starts with nothing pending.
    const secondApi = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(second.wallet.account) });
    await secondApi.withdrawProposal(undo[0]!.id);
    // The browser logs the refused answer ("Failed to load resource"): the one refusal provoked, nothing else.
    const refusal = /^console\.error: Failed to load resource: the server responded with a status of 409 .*\/policy:/;
    assert.deepEqual(
      consoleErrors(owner).filter((line) => !refusal.test(line)),
      [],
    );
    assert.equal(consoleErrors(owner).length, 1, consoleErrors(owner).join('\n'));
    assertNoConsoleErrors(other);
  });

  test("an owner's tenant rule holds a colleague's new permission: the Admins page says it needs approval, and the proposal shows before → after", async () => {
    const coOwner = await createMemberAdmin(svc.service.store, fixture, {
      permissions: ['admins:read', 'admins:manage'],
      displayName: 'Ada Manager',
    });
    const target = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], displayName: 'Rita Target' });
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { ...LOCALE, hash: '#/proposals' });

    // The tenant's policy, under the proposals: an admin's change needs 2 of the admins with admins:manage.
    const policy = page.getByRole('form', { name: 'Tenant policy' });
    await policy.getByRole('button', { name: 'Add a rule' }).click();
    await policy.getByLabel('Operation').selectOption('admin.change');
    await policy.getByLabel('Approvals').fill('2');
    await policy.getByLabel('Of admins with').selectOption('admins:manage');
    await policy.getByRole('button', { name: 'Save the policy' }).click();
    await policy.getByRole('status').getByText('Saved.').waitFor();

    // Granting files:write is held: the dialog says so instead of "saved", and nothing changed.
    await page.getByRole('banner').getByRole('link', { name: 'Admins' }).click();
    await page.getByRole('button', { name: 'Permissions of Rita Target' }).click();
    await page.getByRole('dialog').getByRole('checkbox', { name: 'files:write' }).check();
    await page.getByRole('dialog').getByRole('button', { name: 'Save permissions' }).click();
    const held = page.getByRole('dialog', { name: 'Needs approval' });
    await held.getByText(/^Needs approval:/).waitFor();
    const proposalId = (await held.locator('.notice-held code').first().textContent()) ?? '';
    assert.equal(await page.getByRole('status').getByText('The permissions of Rita Target are saved.').count(), 0);
    assert.deepEqual((await api.getAdmin(target.admin.id)).effectivePermissions, ['files:read']);
    await page.getByRole('banner').getByRole('link', { name: 'Proposals (1 pending)' }).waitFor();

    // The dialog's link opens the proposal: the change as before → after, and who may approve it.
    await held.getByRole('link', { name: 'Open the proposal' }).click();
    const card = page.getByRole('region', { name: `Proposal ${proposalId}` }).getByRole('article');
    await card.getByText(/^Pending: 0 of 2 approvals/).waitFor();
    await card.locator('.change del').getByText('files:read', { exact: true }).waitFor();
    await card.locator('.change ins').getByText('files:read, files:write').waitFor();
    await card.getByRole('list', { name: 'May approve' }).getByText(coOwner.admin.displayName).waitFor();
    // An operation on no channel: the tenant's rule holds it, and no channel's is named.
    const rules = card.getByRole('list', { name: 'Rules' });
    await rules.getByText(/^The tenant's policy: admin\.change needs 2 approvals of admins with admins:manage$/).waitFor();
    assert.equal(await rules.getByRole('listitem').count(), 1);

    // Its proposer withdraws it, after a confirmation: it is closed, and nothing ran.
    await card.getByRole('button', { name: /^Withdraw proposal/ }).click();
    await page.getByRole('dialog', { name: 'Withdraw this proposal?' }).getByRole('button', { name: 'Withdraw' }).click();
    await page
      .getByRole('status')
      .getByText(/^Proposal prp_\S+ withdrawn: nothing ran\.$/)
      .waitFor();
    await page.getByText('No proposal is waiting for approval.').waitFor();
    await page.getByLabel('Status').selectOption('withdrawn');
    await page
      .getByRole('article', { name: /Rita Target/ })
      .getByText('Withdrawn by its proposer: nothing ran.')
      .waitFor();
    assert.deepEqual((await api.getAdmin(target.admin.id)).effectivePermissions, ['files:read']);
    assertNoConsoleErrors(page);
  });
});

/** The fields the dialog shows, as name → text; the details and the deadline's own text, not the added time. */
async function shownFields(dialog: ReturnType<Page['getByRole']>): Promise<Record<string, string>> {
  const fields = dialog.locator('dl.intent-fields');
  const names = await fields.locator('dt').allTextContents();
  const values = await fields
    .locator('dd')
    .evaluateAll((cells) => cells.map((cell) => (cell.querySelector('pre, code')?.textContent ?? '').trim()));
  return Object.fromEntries(names.map((name, i) => [name, values[i] ?? '']));
}

/** The intent's checked fields as the page must show them: text, empty ones empty. */
function fieldsOf(message: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(CHECKED_FIELDS.map((field) => [field, message[field] === undefined ? '' : String(message[field])]));
}

async function screenshots(page: Page, name: string): Promise<void> {
  await screenshot(page, `approvals-${name}`, { width: 1440 });
  await screenshot(page, `approvals-${name}`, { width: 360 });
  await page.setViewportSize({ width: 1440, height: 900 });
}
