import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient, fromViemAccount, type WalletAdminClient } from '../../src/client/index.ts';
import type { Channel } from '../../src/model/channels.ts';
import { ALL_PERMISSIONS } from '../../src/model/permissions.ts';
import { assertNoConsoleErrors, consoleErrors, type InjectedWallet, injectWallet, screenshot, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet } from '../helpers/wallets.ts';

/** One zone and language for the pictures, whatever the machine's: times show their zone. */
const LOCALE = { timezoneId: 'Europe/Berlin', locale: 'en-US' };
/** How often every instance reloads who is suspended and who holds what: short, so that the test sees it. */
const AUTH_STATE_REFRESH_SECONDS = 1;

/**
 * The tenant administered from the console, in two browsers: the owner invites, the invitee accepts
 * in a browser of their own, and the owner's narrowing and suspending reach the invitee's page.
 */
describe('administering the tenant in the console', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  /** A channel the owner is linked to but does not grant: the invitee must not get it. */
  let finance: Channel;
  /** The owner's own API client, beside the browsers: a change "through the API" while a console is open. */
  let api: WalletAdminClient;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket', env: { AUTH_STATE_REFRESH: String(AUTH_STATE_REFRESH_SECONDS) } });
    fixture = await createTenantFixture(svc.service.store, 'Admins');
    finance = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'finance' });
    await svc.service.store.linkChannel(finance.id, fixture.owner.id);
    api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
  });
  after(() => svc.close());

  test('invite, accept in another browser with exactly what was granted, narrow a permission, suspend', async () => {
    const { page: owner } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { ...LOCALE, hash: '#/admins' });
    // The admins, apart from the invitations listed under them.
    const adminList = owner.getByRole('region', { name: 'Admins', exact: true });
    await adminList.getByRole('rowheader', { name: /Admins owner/ }).waitFor();
    // A wallet of one's own: no warning of a published key (first-run.test.ts shows it for the demo's).
    assert.equal(await owner.getByRole('complementary', { name: /key is public/ }).count(), 0);

    // The owner invites: files:read, backups:create and audit:read, on "main" only.
    await owner.getByRole('button', { name: 'Invite an admin…' }).click();
    const invite = owner.getByRole('dialog');
    await invite.getByLabel('Their name (optional)').fill('Iris Invitee');
    // The grid offers every permission the service has, from its one list: the owner holds them all.
    const offered = await invite
      .locator('.permission-matrix input[type=checkbox]')
      .evaluateAll((boxes) => boxes.map((box) => box.getAttribute('aria-label')));
    assert.deepEqual([...offered].sort(), [...ALL_PERMISSIONS].sort());
    assert.equal(await invite.getByRole('checkbox', { name: 'files:read' }).isChecked(), true);
    await invite.getByRole('checkbox', { name: 'backups:create' }).check();
    await invite.getByRole('checkbox', { name: 'audit:read' }).check();
    await invite.getByRole('checkbox', { name: 'main' }).check();
    await invite.getByRole('button', { name: 'Create the invitation' }).click();
    const url = await owner.getByLabel('Invitation link').inputValue();
    assert.match(url, /\/console\/invite#token=.+/);

    // The invitee opens the link in a browser of their own, signs in with a wallet that is no admin yet, and accepts.
    const inviteeWallet = newWallet();
    const invitee = await browser.newPage(LOCALE);
    await injectWallet(invitee, { privateKey: inviteeWallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
    await invitee.goto(url);
    await invitee.getByRole('heading', { name: 'You are invited' }).waitFor();
    // Before any wallet signs: who invites, to which tenant, and exactly what accepting grants.
    const grants = invitee.getByRole('definition').filter({ has: invitee.getByRole('list', { name: 'Permissions granted' }) });
    await grants.waitFor();
    await invitee.getByText(`${fixture.owner.displayName} invites you to administer the tenant ${fixture.tenant.name}`).waitFor();
    assert.deepEqual((await invitee.getByRole('list', { name: 'Permissions granted' }).getByRole('listitem').allTextContents()).sort(), [
      'audit:read',
      'backups:create',
      'files:read',
    ]);
    assert.deepEqual(await invitee.getByRole('list', { name: 'Channels granted' }).getByRole('listitem').allTextContents(), ['main']);
    await invitee.getByText(`A sub-admin below ${fixture.owner.displayName}, not an owner`).waitFor();
    assert.equal(await invitee.getByRole('button', { name: 'Accept the invitation' }).count(), 0, 'nothing to accept before signing in');
    await screenshots(invitee, 'invitation');
    await invitee.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    // The name the inviter gave is offered; the invitee may give another.
    assert.equal(await invitee.getByLabel('Your name, as other admins see it (optional)').inputValue(), 'Iris Invitee');
    await invitee.getByRole('button', { name: 'Accept the invitation' }).click();
    await invitee.getByRole('heading', { name: 'Who am I' }).waitFor();
    assert.equal(new URL(invitee.url()).hash, '#/', 'the token is gone from the address bar');

    // Exactly what was granted: the one channel, the three permissions, and no page needing more.
    await invitee.getByRole('link', { name: /^main/ }).waitFor();
    assert.deepEqual(await invitee.locator('#channels-title ~ ul.link-list strong').allTextContents(), ['main']);
    const heldShown = async () => (await invitee.getByRole('list', { name: 'Permissions' }).getByRole('listitem').allTextContents()).sort();
    assert.deepEqual(await heldShown(), ['audit:read', 'backups:create', 'files:read']);
    assert.equal(await invitee.getByRole('banner').getByRole('link', { name: 'Admins' }).count(), 0);
    await invitee.getByRole('banner').getByRole('link', { name: 'Tenant log' }).waitFor();
    await invitee.getByText('Iris Invitee').first().waitFor();
    const inviteeId = (await api.listAdmins()).items.find((admin) => admin.displayName === 'Iris Invitee')!.id;

    // The invitee can back up "main" now…
    await invitee.goto(`${svc.baseUrl}/console/#/channels/${fixture.channel.id}/backups`);
    await invitee.getByRole('button', { name: 'Back up now' }).click();
    await invitee
      .getByRole('status')
      .getByText(/^Backup \d{8}_\d{6} made/)
      .waitFor();

    // …until the owner takes backups:create away (in the console, below).
    // (Away and back: a reload would sign the page out, its signed message lives in its memory only.)
    await owner.getByRole('link', { name: 'wallet-admin' }).click();
    await owner.getByRole('banner').getByRole('link', { name: 'Admins' }).click();
    await adminList.getByRole('rowheader', { name: /Iris Invitee/ }).waitFor();
    await screenshots(owner, 'admins');
    await owner.getByRole('button', { name: 'Permissions of Iris Invitee' }).click();
    const matrix = owner.getByRole('dialog');
    await matrix.getByRole('checkbox', { name: 'backups:create' }).uncheck();
    await matrix.getByRole('button', { name: 'Save permissions' }).click();
    await owner.getByRole('status').getByText('The permissions of Iris Invitee are saved.').waitFor();
    const row = adminList.getByRole('row', { name: /Iris Invitee/ });
    assert.deepEqual(
      (await row.getByRole('list', { name: 'Permissions of Iris Invitee' }).getByRole('listitem').allTextContents()).sort(),
      ['audit:read', 'files:read'],
    );

    // The invitee's next request is refused: their page reads who they are again, says what changed, and no longer offers the button.
    await waitPastAuthStateRefresh();
    await invitee.getByRole('button', { name: 'Back up now' }).click();
    await invitee.getByRole('alert').getByText('PERMISSION_DENIED').waitFor();
    await invitee.getByRole('status').getByText('Your permissions changed: you no longer hold backups:create.').waitFor();
    await invitee.getByRole('button', { name: 'Back up now' }).waitFor({ state: 'detached' });

    // The owner takes audit:read away through the API: the invitee's next move to another view shows it, with or without a refusal.
    await api.updateAdmin(inviteeId, { permissions: ['files:read'] });
    await waitPastAuthStateRefresh();
    await invitee.getByRole('link', { name: 'Files', exact: true }).click();
    await invitee.getByRole('status').getByText('Your permissions changed: you no longer hold audit:read.').waitFor();
    await invitee.getByRole('banner').getByRole('link', { name: 'Tenant log' }).waitFor({ state: 'detached' });
    assert.equal(await invitee.getByRole('link', { name: 'Audit log', exact: true }).count(), 0, "the channel's Audit log tab is gone");
    await invitee.getByRole('link', { name: 'wallet-admin' }).click();
    await invitee.getByRole('heading', { name: 'Who am I' }).waitFor();
    assert.deepEqual(await heldShown(), ['files:read']);

    // The owner suspends the invitee, after a confirmation saying what that ends.
    await owner.getByRole('button', { name: 'Suspend Iris Invitee' }).click();
    const suspend = owner.getByRole('dialog');
    await suspend.getByText(/signed-in sessions end on every instance/).waitFor();
    await suspend.getByRole('button', { name: 'Suspend', exact: true }).click();
    await row.getByText('Suspended', { exact: true }).waitFor();

    // The invitee's next request (any: here the move to a channel) is refused, and the page says why and asks to sign in again.
    await waitPastAuthStateRefresh();
    await invitee.getByRole('link', { name: /^main/ }).click();
    await invitee.getByRole('heading', { name: 'Sign in' }).waitFor();
    const ended = invitee.getByRole('alert');
    await ended.getByText('ADMIN_SUSPENDED').waitFor();
    await ended.getByText(/^You were signed out: an admin of your tenant suspended your account\./).waitFor();

    assertNoConsoleErrors(owner);
    // The browser logs each refused answer ("Failed to load resource"): the 403s provoked (the backup, then the
    // suspended admin's requests), nothing else.
    const refusal = /^console\.error: Failed to load resource: the server responded with a status of 403 /;
    assert.deepEqual(
      consoleErrors(invitee).filter((line) => !refusal.test(line)),
      [],
    );
    assert.ok(consoleErrors(invitee).length >= 2, consoleErrors(invitee).join('\n'));
  });

  test("a removed admin's open console signs out at its next request, saying why", async () => {
    const member = await createMemberAdmin(svc.service.store, fixture, {
      permissions: ['files:read'],
      channels: [fixture.channel],
      displayName: 'Rory Removed',
    });
    const { page } = await openSignedIn(browser, svc.baseUrl, member.wallet, LOCALE);
    await page.getByRole('link', { name: /^main/ }).waitFor();
    await api.removeAdmin(member.admin.id);
    await waitPastAuthStateRefresh();
    await page.getByRole('link', { name: /^main/ }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const ended = page.getByRole('alert');
    await ended
      .getByText(/^You were signed out: (this wallet no longer belongs to an admin here|your admin account was removed)/)
      .waitFor();
    // Signing in again is refused too: the wallet is no admin's.
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await page.getByRole('alert').getByText('AUTH_UNKNOWN_WALLET').first().waitFor();
  });

  test('a pending invitation is revoked: its link is then refused, saying so', async () => {
    const { page: owner } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { ...LOCALE, hash: '#/admins' });
    await owner.getByRole('button', { name: 'Invite an admin…' }).click();
    await owner.getByRole('dialog').getByLabel('Their name (optional)').fill('Rex Revoked');
    await owner.getByRole('dialog').getByRole('button', { name: 'Create the invitation' }).click();
    const url = await owner.getByLabel('Invitation link').inputValue();
    const row = owner.getByRole('region', { name: 'Invitations' }).getByRole('row', { name: /Rex Revoked/ });
    await row.getByText('pending', { exact: true }).waitFor();
    await owner.getByRole('button', { name: 'Revoke Rex Revoked' }).click();
    await owner.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('revoked', { exact: true }).waitFor();
    assert.equal(await owner.getByRole('button', { name: 'Revoke Rex Revoked' }).count(), 0);

    const invitee = await browser.newPage(LOCALE);
    await injectWallet(invitee, { privateKey: newWallet().privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
    await invitee.goto(url);
    // Refused before any wallet is asked: the page says why, and offers no sign-in.
    await invitee.getByRole('heading', { name: 'Invitation' }).waitFor();
    await invitee.getByRole('alert').getByText('INVITATION_REVOKED').waitFor();
    await invitee.getByText('This invitation cannot be accepted').waitFor();
    assert.equal(await invitee.getByRole('button', { name: 'Sign in with Test Wallet' }).count(), 0);
    // A link whose token opens nothing says so the same way. (Another page first: a new fragment alone loads nothing.)
    await invitee.goto('about:blank');
    await invitee.goto(`${new URL(url).origin}/console/invite#token=wai_made_up`);
    await invitee.getByRole('alert').getByText('INVITATION_NOT_FOUND').waitFor();
    assertNoConsoleErrors(owner);
  });

  test('an admin adds a second wallet by signing the challenge with it, and signs in with that wallet afterwards', async () => {
    const spare = newWallet();
    let spareWallet: InjectedWallet | undefined;
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, {
      ...LOCALE,
      before: async (page) => {
        spareWallet = await injectWallet(page, { privateKey: spare.privateKey, name: 'Spare Wallet', rdns: 'org.example.spare' });
      },
    });
    const wallets = page.getByRole('list', { name: 'Your wallets' });
    await wallets.getByText(fixture.ownerWallet.address).waitFor();
    assert.equal(await wallets.getByRole('listitem').count(), 1);

    await page.getByRole('button', { name: 'Add a wallet…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Add from Spare Wallet' }).click();
    await page.getByRole('status').getByText(`Wallet ${spare.address} added`).waitFor();
    await wallets.getByText(spare.address).waitFor();
    assert.equal(await wallets.getByRole('listitem').count(), 2);
    // What the spare wallet signed is the service's challenge for its own address, typed data that signs nobody in.
    assert.equal(spareWallet?.signed.length, 0, 'no message (personal_sign), which could be a sign-in');
    assert.equal(spareWallet.signedTypedData.length, 1);
    const proof = spareWallet.signedTypedData[0]!.typedData as { primaryType: string; message: { wallet: string } };
    assert.deepEqual([proof.primaryType, proof.message.wallet], ['AddWallet', spare.address]);

    const asSpare = await browser.newPage(LOCALE);
    await injectWallet(asSpare, { privateKey: spare.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
    await asSpare.goto(`${svc.baseUrl}/console/`);
    await asSpare.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await asSpare.getByRole('heading', { name: 'Who am I' }).waitFor();
    await asSpare.getByRole('main').getByText(fixture.owner.displayName).first().waitFor();
    assertNoConsoleErrors(page);
    assertNoConsoleErrors(asSpare);
  });

  test('channel settings: create, rename, archive, link and unlink an admin; the tenant audit log shows each change', async () => {
    const colleague = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], displayName: 'Cole League' });
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { ...LOCALE, hash: '#/channel-settings' });
    await page.getByRole('rowheader', { name: /^main/ }).waitFor();

    await page.getByLabel("New channel's name").fill('legal');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByRole('status').getByText('Channel legal created; you are linked to it.').waitFor();
    await page.getByRole('rowheader', { name: /^legal/ }).waitFor();

    await page.getByRole('button', { name: 'Rename legal' }).click();
    await page.getByRole('dialog').getByLabel('New name').fill('legal-2027');
    await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('rowheader', { name: /^legal-2027/ }).waitFor();

    await page.getByRole('button', { name: 'Archive legal-2027' }).click();
    await page
      .getByRole('dialog')
      .getByText(/read-only/)
      .waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Archive' }).click();
    await page
      .getByRole('row', { name: /legal-2027/ })
      .getByText('Archived')
      .waitFor();
    const legal = (await svc.service.store.findChannelsNamed(fixture.tenant.id, 'legal-2027'))[0];
    assert.ok(legal?.archivedAt, 'archived on the service');

    await page.getByRole('button', { name: 'Admins of legal-2027' }).click();
    const admins = page.getByRole('dialog');
    await admins.getByRole('list', { name: 'Admins linked to legal-2027' }).getByText('Admins owner').waitFor();
    await admins.getByLabel('Link an admin').selectOption({ label: 'Cole League' });
    await admins.getByRole('button', { name: 'Link', exact: true }).click();
    await admins.getByRole('button', { name: 'Unlink Cole League' }).waitFor();
    assert.deepEqual(await svc.service.store.listChannelAdminIds(legal.id), [fixture.owner.id, colleague.admin.id].sort());
    await admins.getByRole('button', { name: 'Unlink Cole League' }).click();
    await admins.getByRole('button', { name: 'Unlink Cole League' }).waitFor({ state: 'detached' });
    assert.deepEqual(await svc.service.store.listChannelAdminIds(legal.id), [fixture.owner.id]);
    await admins.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('banner').getByRole('link', { name: 'Tenant log' }).click();
    const log = page.locator('.tenant-audit-table tbody');
    await log.getByRole('row').first().waitFor();
    for (const action of ['channel.create', 'channel.update', 'channel.link', 'channel.unlink']) {
      await log.getByRole('link', { name: action, exact: true }).first().waitFor();
    }
    // The rename, before → after.
    await log
      .getByRole('row')
      .filter({ has: page.getByText('legal-2027') })
      .filter({ has: page.locator('del', { hasText: 'legal' }) })
      .first()
      .waitFor();

    // Filtered by action, in the URL: only that action's events.
    await page.getByLabel('Action').selectOption('channel.unlink');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/#\/audit\?action=channel\.unlink$/);
    // The unfiltered rows stay on screen until the filtered answer replaces them: wait for that answer.
    assert.deepEqual(await actionsShown(page, ['channel.unlink']), ['channel.unlink']);

    // Who, whom and the channel are picked by name; the URL keeps their ids.
    const filter = (label: string) =>
      page
        .getByRole('form', { name: 'Filter the audit log' })
        .locator('label')
        .filter({ has: page.locator('span', { hasText: new RegExp(`^${label}$`) }) })
        .locator('select');
    await page.getByRole('link', { name: 'Clear', exact: true }).click();
    await page.waitForURL(/#\/audit$/);
    await filter('Who').selectOption({ label: fixture.owner.displayName });
    await filter('Whom').selectOption({ label: 'Cole League' });
    await filter('Channel').selectOption({ label: 'legal-2027' });
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/#\/audit\?.*channelId=/);
    const query = new URLSearchParams(new URL(page.url()).hash.split('?')[1]);
    assert.deepEqual(Object.fromEntries(query), { adminId: fixture.owner.id, targetAdminId: colleague.admin.id, channelId: legal.id });
    assert.deepEqual(await actionsShown(page, ['channel.link', 'channel.unlink']), ['channel.link', 'channel.unlink']);
    // The form shows the filters by name.
    assert.equal(await filter('Whom').locator('option:checked').innerText(), 'Cole League');
    assertNoConsoleErrors(page);
  });
});

/**
 * The actions the tenant log's rows show, sorted, once they are the expected ones (or what they are after
 * 10 s, for the assertion to name): a filter's answer replaces the rows some time after the URL changes.
 */
async function actionsShown(page: Page, expected: string[]): Promise<string[]> {
  const shown = () =>
    page.evaluate(() =>
      [...document.querySelectorAll('.tenant-audit-table tbody tr td:nth-child(2) a')].map((a) => a.textContent ?? '').sort(),
    );
  await page
    .waitForFunction(
      (want) => {
        const got = [...document.querySelectorAll('.tenant-audit-table tbody tr td:nth-child(2) a')].map((a) => a.textContent ?? '').sort();
        return JSON.stringify(got) === JSON.stringify(want);
      },
      [...expected].sort(),
      { timeout: 10_000 },
    )
    .catch(() => undefined);
  return shown();
}

async function waitPastAuthStateRefresh(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, AUTH_STATE_REFRESH_SECONDS * 1000 + 500));
}

/** The page at a desktop's and a small phone's width, then back to the desktop's. */
async function screenshots(page: Page, name: string): Promise<void> {
  for (const width of [1440, 360] as const) await screenshot(page, name, { width });
  await page.setViewportSize({ width: 1440, height: 900 });
}
