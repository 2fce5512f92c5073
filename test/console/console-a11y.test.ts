import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createClient, fromViemAccount, HeldForApproval, ProblemError, type WalletAdminClient } from '../../src/client/index.ts';
import type { Channel } from '../../src/model/channels.ts';
import { axeViolations } from '../helpers/axe.ts';
import { assertNoConsoleErrors, consoleErrors, emulateColorScheme, injectWallet, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * Keyboard and screen-reader use of the console (issue 34): axe-core over every view and the
 * dialogs, light and dark, wide and narrow; and a keyboard-only walk from sign-in to an undone
 * restore, with where focus is at each step. One service and one browser for all of it.
 */

type Scheme = 'light' | 'dark';
const DIALOG = 'dialog[open]';
const LOOKS: readonly { scheme: Scheme; width: number }[] = [
  { scheme: 'light', width: 1440 },
  { scheme: 'light', width: 360 },
  { scheme: 'dark', width: 1440 },
  { scheme: 'dark', width: 360 },
];

/** A state of the page worth checking: a view (reached by its fragment) or a dialog opened on it. */
interface PageState {
  name: string;
  /** The view's fragment; a dialog's state opens on the view as the state before left it. */
  hash?: string;
  /** Resolves once the state is fully shown. */
  ready(page: Page): Promise<unknown>;
  /** Leaves a dialog's state (Escape); a view's needs nothing. */
  leave?(page: Page): Promise<unknown>;
  /** What axe checks: the open dialog of a dialog's state (its view was checked as the state before), else the page. */
  within?: string;
}

describe('the console with a keyboard and a screen reader', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  let owner: WalletAdminClient;
  let vault: Channel;
  let backup: string;
  /** After the changes: the folder restore's select lists it first, `backup` under it. */
  let latestBackup: string;
  let proposalId: string;
  let vaultBackup: string;
  let invitationUrl: string;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'A11y');
    vault = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'vault' });
    await svc.service.store.linkChannel(vault.id, fixture.owner.id);
    const colleague = await createMemberAdmin(svc.service.store, fixture, {
      permissions: ['files:read', 'files:write', 'files:restore', 'backups:create'],
      channels: [fixture.channel, vault],
      displayName: 'Dana Reviewer',
    });
    owner = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    const asColleague = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(colleague.wallet.account) });
    const main = fixture.channel.id;
    // Every kind of row the views colour: backups, replaced and deleted versions, failed and held actions.
    await owner.upload(main, 'contracts', 'agreement.pdf', 'v1 of the agreement', 'application/pdf');
    await owner.upload(main, 'contracts', 'nda.pdf', 'nda', 'application/pdf');
    await owner.upload(main, 'contracts', 'draft.txt', 'draft');
    await owner.upload(main, 'welcome', 'prices.csv', 'item,price\ntea,3\n', 'text/csv');
    await nextSecond();
    backup = (await owner.createBackup(main)).timestamp;
    await nextSecond();
    await asColleague.upload(main, 'contracts', 'agreement.pdf', 'v2 of the agreement', 'application/pdf');
    await asColleague.deleteFile(main, 'contracts', 'draft.txt');
    await owner.upload(main, 'welcome', 'prices.csv', 'item,price\ntea,4\n', 'text/csv');
    // A refused restore: the audit log's "failed" badge.
    const refused = await owner.restore(main, 'contracts', 'nda.pdf', { backupTimestamp: '20000101_000000' }).then(
      () => assert.fail('no backup of 2000'),
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ProblemError && refused.code === 'BACKUP_NOT_FOUND', String(refused));
    await nextSecond();
    latestBackup = (await owner.createBackup(main)).timestamp;
    // A channel whose restores need two approvals: one held restore waits on the Proposals page.
    await owner.upload(vault.id, 'keys', 'k1.txt', 'one');
    await nextSecond();
    vaultBackup = (await owner.createBackup(vault.id)).timestamp;
    await owner.upload(vault.id, 'keys', 'k1.txt', 'two');
    await owner.putChannelPolicy(vault.id, [{ operation: 'channel.restore', approvals: 2, permission: 'files:restore' }]);
    const held = await owner.restoreChannel(vault.id, { backupTimestamp: vaultBackup }).then(
      () => assert.fail('the vault policy holds a channel restore'),
      (error: unknown) => error,
    );
    assert.ok(held instanceof HeldForApproval);
    proposalId = held.proposal.id;
    invitationUrl = (await owner.createInvitation({ permissions: ['files:read'], channels: [main], expiresIn: 3600 })).url;
  });
  after(() => svc.close());

  const main = () => fixture.channel.id;
  const dialog = (page: Page) => page.getByRole('dialog');
  const pressEscape = async (page: Page) => {
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'detached' });
  };

  /** Runs axe on each state in each look; every violation found, of every state, fails the test at the end. */
  async function checkStates(page: Page, states: readonly PageState[]): Promise<string[]> {
    const found: string[] = [];
    for (const state of states) {
      if (state.hash !== undefined) await page.evaluate(openView, state.hash);
      await state.ready(page);
      for (const look of LOOKS) {
        await emulateColorScheme(page, look.scheme);
        await page.setViewportSize({ width: look.width, height: 900 });
        found.push(...(await axeViolations(page, `${state.name} (${look.scheme}, ${look.width} px)`, state.within)));
      }
      await state.leave?.(page);
    }
    return found;
  }

  test('axe finds nothing serious or critical in any view or dialog, light and dark, at 1440 and 360 px', async () => {
    const signedOut = await browser.newPage();
    await injectWallet(signedOut, { privateKey: fixture.ownerWallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
    await signedOut.goto(`${svc.baseUrl}/console/`);
    const found = await checkStates(signedOut, [
      { name: 'sign in', ready: (page) => page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor() },
    ]);
    await signedOut.goto(invitationUrl);
    found.push(
      ...(await checkStates(signedOut, [
        { name: 'invitation', ready: (page) => page.getByRole('heading', { name: 'You are invited' }).waitFor() },
      ])),
    );
    assertNoConsoleErrors(signedOut);

    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet);
    const channel = main();
    const rows = (page: Page) => page.locator('main tbody tr').first().waitFor();
    const states: PageState[] = [
      { name: 'home', hash: '#/', ready: (page) => page.getByRole('link', { name: /^main/ }).first().waitFor() },
      {
        name: 'add a wallet',
        ready: async (page) => {
          await page.getByRole('button', { name: 'Add a wallet…' }).click();
          await dialog(page).getByRole('button', { name: 'Add from Test Wallet' }).waitFor();
        },
        leave: pressEscape,
        within: DIALOG,
      },
      {
        name: 'channels menu',
        ready: async (page) => {
          await page.getByRole('banner').getByText('Channels', { exact: true }).click();
          await page.getByRole('list', { name: 'Your channels' }).waitFor();
        },
        leave: (page) => page.getByRole('banner').getByText('Channels', { exact: true }).click(),
      },
      { name: 'folders', hash: `#/channels/${channel}/folders`, ready: (page) => page.getByRole('link', { name: /contracts/ }).waitFor() },
      {
        name: 'files',
        hash: `#/channels/${channel}/folders/contracts`,
        ready: (page) => page.getByRole('link', { name: 'nda.pdf' }).waitFor(),
      },
      {
        name: 'folder restore: the plan',
        ready: async (page) => {
          await page.getByRole('button', { name: 'Restore folder…' }).click();
          await dialog(page)
            .getByRole('combobox', { name: /^Backup/ })
            .selectOption(backup);
          await dialog(page).getByRole('button', { name: 'Preview the restore' }).click();
          await dialog(page).getByRole('list', { name: 'Planned changes' }).waitFor();
        },
        leave: pressEscape,
        within: DIALOG,
      },
      {
        name: 'file history',
        hash: `#/channels/${channel}/folders/contracts/files/agreement.pdf`,
        ready: (page) => page.getByRole('button', { name: /^Restore backup of / }).waitFor(),
      },
      {
        name: 'file restore',
        ready: async (page) => {
          await page.getByRole('button', { name: /^Restore backup of / }).click();
          await dialog(page)
            .getByText(/is kept as a version first/)
            .waitFor();
        },
        leave: pressEscape,
        within: DIALOG,
      },
      {
        // The backup holds the bytes the file has now: its button says "Current", disabled.
        name: 'file history, a version current',
        hash: `#/channels/${channel}/folders/contracts/files/nda.pdf`,
        ready: (page) => page.locator('.timeline-item button:disabled').first().waitFor(),
      },
      {
        name: 'deleted files',
        hash: `#/channels/${channel}/folders/contracts/deleted`,
        ready: (page) => page.getByRole('rowheader', { name: /draft\.txt/ }).waitFor(),
      },
      { name: 'backups', hash: `#/channels/${channel}/backups`, ready: rows },
      {
        name: 'backup lock',
        ready: async (page) => {
          await page.getByRole('button', { name: `Lock backup ${backup}` }).click();
          await dialog(page)
            .getByRole('radio', { name: /Compliance/ })
            .waitFor();
        },
        leave: pressEscape,
        within: DIALOG,
      },
      {
        name: 'changes since a backup',
        hash: `#/channels/${channel}/changes?from=${backup}`,
        ready: (page) => page.locator('.changes-table tbody tr').first().waitFor(),
      },
      { name: 'audit log', hash: `#/channels/${channel}/audit`, ready: rows },
      {
        name: 'no such channel',
        hash: '#/channels/nowhere/folders',
        ready: (page) => page.getByRole('heading', { name: 'No such channel' }).waitFor(),
      },
      { name: 'admins', hash: '#/admins', ready: (page) => page.getByRole('rowheader', { name: /Dana Reviewer/ }).waitFor() },
      {
        name: 'invite an admin',
        ready: async (page) => {
          await page.getByRole('button', { name: 'Invite an admin…' }).click();
          await dialog(page).getByRole('checkbox', { name: 'vault' }).waitFor();
        },
        leave: pressEscape,
        within: DIALOG,
      },
      {
        name: 'permissions of an admin',
        ready: async (page) => {
          await page.getByRole('button', { name: 'Permissions of Dana Reviewer' }).click();
          await dialog(page).getByRole('checkbox', { name: 'files:restore' }).waitFor();
        },
        leave: pressEscape,
        within: DIALOG,
      },
      { name: 'channel settings', hash: '#/channel-settings', ready: (page) => page.getByRole('rowheader', { name: /vault/ }).waitFor() },
      {
        name: 'channel policy',
        ready: (page) =>
          page
            .getByRole('button', { name: 'Policy of vault' })
            .click()
            .then(() => dialog(page).getByRole('list', { name: 'Rules' }).waitFor()),
        leave: pressEscape,
        within: DIALOG,
      },
      { name: 'tenant log', hash: '#/audit', ready: rows },
      { name: 'proposals', hash: '#/proposals', ready: (page) => page.getByRole('article').first().waitFor() },
      {
        name: 'approve a proposal',
        ready: (page) =>
          page
            .getByRole('button', { name: 'Approve…' })
            .click()
            .then(() => dialog(page).locator('dl.intent-fields').waitFor()),
        leave: pressEscape,
        within: DIALOG,
      },
      { name: 'one proposal', hash: `#/proposals/${proposalId}`, ready: (page) => page.getByRole('article').first().waitFor() },
      { name: 'vault backups', hash: `#/channels/${vault.id}/backups`, ready: rows },
      {
        // Last: it adds a second pending proposal.
        name: 'a held restore: needs approval',
        ready: async (page) => {
          await page.getByRole('button', { name: `Restore the channel from backup ${vaultBackup}` }).click();
          await dialog(page).getByRole('button', { name: 'Preview the restore' }).click();
          await dialog(page).getByRole('button', { name: 'Restore 1 file' }).click();
          await page.getByRole('dialog', { name: 'Needs approval' }).locator('.notice-held').waitFor();
        },
        leave: pressEscape,
        within: DIALOG,
      },
    ];
    found.push(...(await checkStates(page, states)));
    assert.ok(found.length === 0, `axe found serious or critical violations:\n${found.join('\n')}`);
    // The one refusal provoked: the channel that is none of the admin's.
    const refusal = /^console\.error: Failed to load resource: the server responded with a status of 404 .*\/api\/channels\/nowhere\//;
    assert.deepEqual(
      consoleErrors(page).filter((line) => !refusal.test(line)),
      [],
      'no console error but the refusal provoked',
    );
  });

  test('keyboard only: sign in, open a file, restore it from a backup, undo; focus is where the admin is at each step', async () => {
    const page = await browser.newPage();
    await injectWallet(page, { privateKey: fixture.ownerWallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
    await page.goto(`${svc.baseUrl}/console/`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).waitFor();
    await assertTitle(page, 'Sign in · wallet-admin');
    const tab = (target: Focus, step: string, most?: number) => keyTo(page, 'Tab', target, step, most);
    const shiftTab = (target: Focus, step: string) => keyTo(page, 'Shift+Tab', target, step);

    // The first Tab is the skip link; then on to the wallet's button, and Enter signs in.
    await tab({ tag: 'a', name: /^Skip to content$/ }, 'the first Tab', 1);
    await tab({ tag: 'button', name: /^Sign in with Test Wallet$/ }, 'the sign-in button');
    await page.keyboard.press('Enter');
    await assertFocus(page, { tag: 'h1', name: /^Who am I$/ }, 'signed in: the home view');
    await assertTitle(page, 'Home · wallet-admin');

    // Each view, opened by Enter on a link, takes focus to its heading and names itself in the title.
    await tab({ tag: 'a', name: /^main chn_/ }, 'the channel on the home view');
    await page.keyboard.press('Enter');
    await assertFocus(page, { tag: 'h1', name: /^Folders$/ }, 'the channel');
    await assertTitle(page, 'Folders · main · wallet-admin');
    await tab({ tag: 'a', name: /^welcome/ }, 'the folder');
    await page.keyboard.press('Enter');
    await assertFocus(page, { tag: 'h1', name: /^welcome/ }, 'the folder');
    await assertTitle(page, 'welcome · main · wallet-admin');
    await tab({ tag: 'a', name: /^prices\.csv$/ }, 'the file');
    await page.keyboard.press('Enter');
    await assertFocus(page, { tag: 'h1', name: /^prices\.csv$/ }, 'the file');
    await assertTitle(page, 'prices.csv · welcome · main · wallet-admin');
    const fileUrl = page.url();

    // The skip link goes to the main content, and stays on this view (it once opened the home page).
    await shiftTab({ tag: 'a', name: /^Skip to content$/ }, 'back to the skip link');
    await page.keyboard.press('Enter');
    await assertFocus(page, { tag: 'main', name: /prices\.csv/ }, 'the skip link');
    assert.equal(page.url(), fileUrl, 'the skip link left the URL alone');
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'prices.csv');

    // Restore from the backup: the dialog takes focus, Escape gives it back to its opener.
    // The newest backup holds the bytes of now (its button "Current", disabled, no Tab stop): the one before.
    const restoreBackup = /^Restore backup of /;
    await tab({ tag: 'button', name: restoreBackup }, "the backup's Restore");
    await page.keyboard.press('Enter');
    await assertFocus(page, { tag: 'button', name: /^Cancel$/, inDialog: 'Restore prices.csv?' }, 'the dialog open');
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'detached' });
    await assertFocus(page, { tag: 'button', name: restoreBackup }, 'the dialog cancelled');
    await page.keyboard.press('Space');
    await assertFocus(page, { tag: 'button', name: /^Cancel$/, inDialog: 'Restore prices.csv?' }, 'the dialog open again');
    await tab({ tag: 'button', name: /^Restore$/, inDialog: 'Restore prices.csv?' }, "the dialog's Restore", 1);
    await page.keyboard.press('Enter');
    // The backup's button turns "Current" (disabled): focus goes to the status line that says what was done.
    await assertFocus(page, { tag: 'p', name: /^prices\.csv restored: backup of / }, 'restored');
    await page.getByRole('button', { name: /^Current, the same bytes as now: backup of / }).waitFor();
    const text = async () => (await owner.download(main(), 'welcome', 'prices.csv')).text();
    assert.equal(await text(), 'item,price\ntea,3\n', "the backup's bytes");

    // Undo, from the status line.
    await tab({ tag: 'button', name: /^Undo restore$/ }, 'the undo, next after the status line', 1);
    // A control moved in the page (taken out and put back, as a re-render may place it) loses focus
    // in the browser: the page gives it back rather than leave a keyboard user on the body.
    await page.evaluate(() => {
      const undo = document.activeElement!;
      undo.parentNode!.insertBefore(undo, undo.nextSibling);
    });
    await assertFocus(page, { tag: 'button', name: /^Undo restore$/ }, 'the undo, moved in the page');
    await page.keyboard.press('Space');
    await assertFocus(page, { tag: 'p', name: /^Restore of prices\.csv undone\./ }, 'undone');
    assert.equal(await text(), 'item,price\ntea,4\n', 'the bytes before the restore');

    // The folder's restore: arrows pick the backup, and the plan, its next step, keeps focus in the dialog.
    await tab({ tag: 'a', name: /^welcome$/ }, 'the breadcrumb to the folder, after the status line');
    await page.keyboard.press('Enter');
    await assertFocus(page, { tag: 'h1', name: /^welcome/ }, 'the folder again');
    await tab({ tag: 'button', name: /^Restore folder…$/ }, 'Restore folder…');
    await page.keyboard.press('Enter');
    const backupSelect = dialog(page).getByRole('combobox', { name: /^Backup/ });
    await assertFocus(page, { tag: 'select', name: /./, inDialog: 'Restore the folder welcome' }, 'the folder dialog');
    await backupSelect.locator('option', { hasText: backup }).waitFor({ state: 'attached' });
    assert.equal(await backupSelect.inputValue(), latestBackup);
    await page.keyboard.press('ArrowDown');
    assert.equal(await backupSelect.inputValue(), backup, 'ArrowDown picked the older backup');
    await tab({ tag: 'button', name: /^Preview the restore$/, inDialog: 'Restore the folder welcome' }, 'Preview');
    await page.keyboard.press('Enter');
    await dialog(page).getByRole('list', { name: 'Planned changes' }).waitFor();
    await assertFocus(page, { tag: 'h2', name: /^Restore the folder welcome\?$/, inDialog: 'Restore the folder welcome?' }, 'the plan');
    await tab({ tag: 'button', name: /^Restore 1 file$/, inDialog: 'Restore the folder welcome?' }, "the plan's confirmation");
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'detached' });
    await assertFocus(page, { tag: 'button', name: /^Restore folder…$/ }, 'the plan cancelled');
    assert.equal(await text(), 'item,price\ntea,4\n', 'nothing restored');
    assertNoConsoleErrors(page);
  });
});

/** Opens a view as a link in the page does: by its fragment (a reload would sign the page out). */
function openView(hash: string): void {
  window.location.hash = hash;
}

/** What has focus: its tag, the name it is announced by (aria-label, else its text as shown) and the dialog it is in. */
interface Focus {
  tag: string;
  name: RegExp;
  /** The accessible name of the open dialog it must be in. */
  inDialog?: string;
}

function focusedNow(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement;
    const dialog = element?.closest('dialog');
    const titleId = dialog?.getAttribute('aria-labelledby');
    return {
      tag: element?.tagName.toLowerCase() ?? 'none',
      name: (element?.getAttribute('aria-label') ?? (element as HTMLElement | null)?.innerText ?? '').replace(/\s+/g, ' ').trim(),
      dialog: titleId ? (document.getElementById(titleId)?.textContent ?? '') : undefined,
    };
  });
}

const matches = (now: Awaited<ReturnType<typeof focusedNow>>, target: Focus) =>
  now.tag === target.tag && target.name.test(now.name) && now.dialog === target.inDialog;

/** Focus reaches `target` (after what the page does in answer: a view that loads, a dialog that closes). */
async function assertFocus(page: Page, target: Focus, step: string): Promise<void> {
  try {
    await page.waitForFunction(
      ({ tag, source, flags, inDialog }) => {
        const element = document.activeElement;
        const name = (element?.getAttribute('aria-label') ?? (element as HTMLElement | null)?.innerText ?? '').replace(/\s+/g, ' ').trim();
        const titleId = element?.closest('dialog')?.getAttribute('aria-labelledby');
        const dialog = titleId ? (document.getElementById(titleId)?.textContent ?? '') : undefined;
        return element?.tagName.toLowerCase() === tag && new RegExp(source, flags).test(name) && dialog === inDialog;
      },
      { tag: target.tag, source: target.name.source, flags: target.name.flags, inDialog: target.inDialog },
      { timeout: 10_000 },
    );
  } catch {
    const now = await focusedNow(page);
    assert.fail(
      `${step}: focus is on <${now.tag}> "${now.name}"${now.dialog ? ` in "${now.dialog}"` : ''}, not <${target.tag}> ${target.name}`,
    );
  }
}

/** The page's title becomes `title` (it is set once the view has rendered). */
async function assertTitle(page: Page, title: string): Promise<void> {
  try {
    await page.waitForFunction((expected) => document.title === expected, title, { timeout: 10_000 });
  } catch {
    assert.equal(await page.title(), title);
  }
}

/** Presses `key` (Tab or Shift+Tab) until focus is on `target`, at most `most` times. */
async function keyTo(page: Page, key: 'Tab' | 'Shift+Tab', target: Focus, step: string, most = 30): Promise<void> {
  const passed: string[] = [];
  for (let i = 0; i < most; i++) {
    await page.keyboard.press(key);
    const now = await focusedNow(page);
    if (matches(now, target)) return;
    passed.push(`<${now.tag}> ${now.name.slice(0, 40)}`);
  }
  assert.fail(`${step}: ${key} never reached <${target.tag}> ${target.name}; it went through ${passed.join(', ')}`);
}
