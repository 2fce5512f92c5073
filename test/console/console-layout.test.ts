import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createClient, fromViemAccount } from '../../src/client/index.ts';
import { assertNoConsoleErrors, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * How the console's views use the screen, at the widths a reviewer tried (1440 px, and 390 px: a
 * phone): the width is used, nothing sticks out of its card, no button is cut, and a name is never
 * broken in the middle. The page is the same on either engine: once, on the embedded default.
 */
describe('the console at 1440 and 390 px', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  let channel: string;
  let backup: string;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Layout');
    channel = fixture.channel.id;
    const api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    // Names of the length and shape that broke: hyphenated, in a folder with a long name of its own.
    await api.upload(channel, 'contracts-and-agreements', 'supplier-agreement-2026-final.pdf', 'v1', 'application/pdf');
    await api.upload(channel, 'contracts-and-agreements', 'non-disclosure-agreement.pdf', 'nda', 'application/pdf');
    await nextSecond();
    backup = (await api.createBackup(channel)).timestamp;
    await api.upload(channel, 'contracts-and-agreements', 'supplier-agreement-2026-final.pdf', 'v2', 'application/pdf');
    await api.upload(channel, 'contracts-and-agreements', 'pricing-schedule-2027.pdf', 'prices', 'application/pdf');
    await nextSecond();
    await api.createBackup(channel);
  });
  after(() => svc.close());

  const open = (hash: string, width: number) => openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, { hash, width });

  /**
   * The lines an element's text is laid out on, as the reader sees them: the text of each line box
   * (its characters grouped by the top of their boxes).
   */
  const linesOf = (element: Locator) =>
    element.evaluate((root) => {
      const lines: { top: number; text: string }[] = [];
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (let i = 0; i < text.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const box = range.getBoundingClientRect();
          if (box.width === 0 && text[i] === ' ') continue;
          const line = lines.find((l) => Math.abs(l.top - box.top) < box.height / 2);
          if (line) line.text += text[i];
          else lines.push({ top: box.top, text: text[i]! });
        }
      }
      return lines.sort((a, b) => a.top - b.top).map((l) => l.text);
    });

  /** Each path is whole on a line, or broken after a slash: never inside a folder's or a file's name. */
  const assertNamesWhole = async (paths: Locator, where: string) => {
    const count = await paths.count();
    assert.ok(count > 0, `${where}: paths to look at`);
    for (let i = 0; i < count; i++) {
      const lines = await linesOf(paths.nth(i));
      for (const line of lines.slice(0, -1)) assert.match(line, /\/$/, `${where}: "${lines.join('⏎')}" breaks inside a name`);
    }
  };

  /** Inside its card, and not cut: an element whose text is wider than its box shows part of it ("Res"). */
  const assertWhole = async (element: Locator, card: Locator, what: string) => {
    const [box, cardBox] = [await element.boundingBox(), await card.boundingBox()];
    assert.ok(box && cardBox);
    assert.ok(box.x >= cardBox.x && box.x + box.width <= cardBox.x + cardBox.width + 0.5, `${what} sticks out of its card`);
    const clipped = await element.evaluate((node) => node.scrollWidth > node.clientWidth + 1);
    assert.equal(clipped, false, `${what} shows only part of its text`);
  };

  test('1440 px: the content takes the width of the screen, less its margins', async () => {
    const { page } = await open(`#/channels/${channel}/folders/contracts-and-agreements`, 1440);
    await page.getByRole('link', { name: 'non-disclosure-agreement.pdf' }).waitFor();
    const card = await page.locator('main .card').first().boundingBox();
    assert.ok(card && card.width >= 1360, `the card is ${card?.width} px wide on a 1440 px screen`);
    assertNoConsoleErrors(page);
  });

  for (const width of [1440, 1024, 390]) {
    test(`${width} px: the audit log keeps names whole, its filter buttons inside their card`, async () => {
      const { page } = await open(`#/channels/${channel}/audit`, width);
      await page.locator('.audit-table tbody tr').first().waitFor();
      await assertNamesWhole(page.locator('.audit-table tbody td:nth-child(4) a'), `audit at ${width} px`);
      const filters = page.getByRole('form', { name: 'Filter the audit log' });
      const card = page.locator('main .card').filter({ has: filters });
      for (const name of ['Apply filters', 'Clear']) {
        await assertWhole(filters.getByRole(name === 'Clear' ? 'link' : 'button', { name }), card, name);
      }
      assertNoConsoleErrors(page);
    });

    test(`${width} px: a folder's files, and a restore's plan, keep names whole`, async () => {
      const { page } = await open(`#/channels/${channel}/folders/contracts-and-agreements`, width);
      await page.getByRole('link', { name: 'non-disclosure-agreement.pdf' }).waitFor();
      await assertNamesWhole(page.locator('.files-table tbody th a'), `files at ${width} px`);
      const card = page.locator('main .card').first();
      for (const button of await page.locator('.files-table tbody button').all()) {
        await assertWhole(button, card, `"${await button.innerText()}"`);
      }
      await page.getByRole('button', { name: 'Restore folder…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('combobox', { name: /^Backup/ }).selectOption(backup);
      await dialog.getByRole('button', { name: 'Preview the restore' }).click();
      const plan = dialog.getByRole('list', { name: 'Planned changes' });
      await plan.waitFor();
      await assertNamesWhole(plan.locator('li > span:last-child'), `the plan at ${width} px`);
      assertNoConsoleErrors(page);
    });

    test(`${width} px: the backups fit their card, every button whole`, async () => {
      const { page } = await open(`#/channels/${channel}/backups`, width);
      await page.locator('main table tbody tr').nth(1).waitFor();
      await assertTableFits(page, width);
      const card = page.locator('main .card').first();
      const controls = page.locator('main table tbody').locator('a.button, button');
      // An owner holds backups:lock and backups:delete too: Lock…, Legal hold and Delete… beside them.
      assert.equal(await controls.count(), 12, 'Changes since, ZIP, Restore…, Lock…, Legal hold and Delete… on each of two backups');
      for (const control of await controls.all()) await assertWhole(control, card, `"${await control.innerText()}"`);
      assertNoConsoleErrors(page);
    });
  }

  /** A table narrower than its card scrolls on its own: a table that fits has nothing to scroll. */
  async function assertTableFits(page: Page, width: number) {
    const overflow = await page.locator('.table-wrap').evaluate((wrap) => wrap.scrollWidth - wrap.clientWidth);
    assert.ok(overflow <= 0, `at ${width} px the table is ${overflow} px wider than its card`);
  }
});
