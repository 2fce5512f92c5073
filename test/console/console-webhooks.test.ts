import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, fromViemAccount, type WalletAdminClient } from '../../src/client/index.ts';
import { axeViolations } from '../helpers/axe.ts';
import { consoleErrors, emulateColorScheme, screenshot, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

/** One zone and language for the pictures, whatever the machine's: times show their zone. */
const LOCALE = { timezoneId: 'Europe/Berlin', locale: 'en-US' };

/**
 * Deliveries fast: loopback receivers allowed, the chain polled every 30 ms, and a failing event
 * dead-lettered after a second of retries (at most 60 ms apart) instead of a day.
 */
const EVENTS = {
  OUTBOUND_ALLOW: '127.0.0.0/8',
  EVENTS_POLL_INTERVAL: '30',
  EVENTS_TIMEOUT: '1500',
  EVENTS_BACKOFF_MAX: '60',
  EVENTS_RETRY_FOR: '1',
};

/**
 * The Webhooks page as an owner uses it, against a receiver on loopback: add one (its secret shown
 * once), watch a change delivered, a failing receiver's event die and be retried, test, pause and
 * resume, rotate the secret, delete; and a creation a policy holds, which links to its proposal.
 */
describe('webhooks in the console', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  /** The owner's own API client, beside the browser: the changes whose events the webhook carries. */
  let api: WalletAdminClient;
  let receiver: WebhookReceiver;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket', env: EVENTS });
    fixture = await createTenantFixture(svc.service.store, 'Hooks');
    api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    await svc?.close();
    await receiver?.close();
  });

  test('add, delivered, dead and retried, test event, pause and resume, rotate, delete; a held creation links to its proposal', async () => {
    const channel = fixture.channel.id;
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, LOCALE);
    await page.getByRole('banner').getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByText('No webhook yet: add one below.').waitFor();

    // The service judges the URL, and its refusal shows as every other problem does: its detail and code.
    const form = page.getByRole('form', { name: 'Add a webhook' });
    await form.getByLabel('URL').fill('http://localhost/hook');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await form.getByRole('alert').getByText('OUTBOUND_ADDRESS_REFUSED').waitFor();
    assert.equal(await form.getByLabel('Event types').getAttribute('aria-describedby'), 'webhook-types-hint');
    assert.deepEqual(await axeViolations(page, 'webhooks: the list, empty, and a refused URL'), []);

    // Added: the new webhook's page, its secret shown once, in a box that says so.
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByLabel('Event types').fill('upload, delete');
    await form.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.getByRole('textbox', { name: 'Signing secret' });
    await secret.waitFor();
    const firstSecret = await secret.inputValue();
    assert.match(firstSecret, /^whsec_/);
    await page.getByText('Copy it now: it will not be shown again.').waitFor();
    const [made] = (await api.listWebhooks()).items;
    assert.ok(made);
    assert.deepEqual(made.types, ['upload', 'delete']);
    assert.ok(page.url().endsWith(`#/webhooks/${made.id}`), page.url());
    await page.getByRole('heading', { level: 1, name: `Webhook to ${receiver.url}` }).waitFor();

    // Changes through the API: the page follows the log on its own, and shows them delivered.
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    const rowOf = (type: string) =>
      deliveries.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${type}\\b`) }) });
    await api.upload(channel, 'docs', 'a.txt', 'one');
    await api.upload(channel, 'docs', 'b.txt', 'two');
    await rowOf('upload').nth(1).getByText('Delivered', { exact: true }).waitFor();
    await rowOf('upload').first().getByText('Delivered', { exact: true }).waitFor();
    assert.match(await rowOf('upload').first().innerText(), /\b204\b/);

    // The receiver fails: the event is retried for a second, then dead, with its error and a Retry button.
    receiver.answer = () => 500;
    await api.deleteFile(channel, 'docs', 'a.txt');
    const dead = rowOf('delete');
    await dead.getByText('Dead', { exact: true }).waitFor();
    assert.match(await dead.innerText(), /HTTP 500: receiver says 500/);
    assert.ok(Number(await dead.locator('td').nth(2).innerText()) > 1, 'attempts, retried before it died');

    // The pictures and axe: a webhook, deliveries delivered and dead, the secret box, at a desktop's and a small phone's width.
    for (const width of [1440, 360] as const) {
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await axeViolations(page, `a webhook's page (${width} px)`), []);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${width} px`);
      await screenshot(page, 'webhooks', { width });
      // Dark, as a person whose system asks for it sees the page: axe checks its contrast too.
      await emulateColorScheme(page, 'dark');
      assert.deepEqual(await axeViolations(page, `a webhook's page, dark (${width} px)`), []);
      await screenshot(page, 'webhooks-dark', { width });
      await emulateColorScheme(page, 'light');
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await secret.count(), 0, 'the secret is gone once dismissed');

    // The list: the webhook's URL, types, state, last delivery and lag; its URL leads back to its page.
    await page.getByRole('link', { name: 'All webhooks' }).click();
    const listed = page.getByRole('region', { name: 'Webhooks' }).getByRole('row').filter({ hasText: made.id });
    await listed.getByText('Dead', { exact: true }).waitFor();
    assert.match(await listed.innerText(), /upload\s+delete[\s\S]*Active[\s\S]*HTTP 500[\s\S]*(Up to date|behind)/);
    for (const width of [1440, 360] as const) {
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await axeViolations(page, `the webhooks (${width} px)`), []);
      await screenshot(page, 'webhooks-list', { width });
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await listed.getByRole('link', { name: receiver.url }).click();

    // Only the dead ones; the receiver is back; Retry sends it again at once and the row says so.
    await deliveries.getByLabel('Status').selectOption('dead');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('.deliveries-table tbody tr')];
      return rows.length === 1 && rows[0]!.textContent!.includes('Dead');
    });
    receiver.answer = () => 204;
    await deliveries.getByRole('button', { name: /^Retry the delivery of delete \(event \d+\)$/ }).click();
    await page
      .getByRole('status')
      .getByText(/^The delivery of delete \(event \d+\) was sent again: delivered, HTTP 204\.$/)
      .waitFor();
    await deliveries.getByText('No delivery is dead.').waitFor();
    await deliveries.getByLabel('Status').selectOption('');
    await dead.getByText('Delivered', { exact: true }).waitFor();
    assert.ok(receiver.events().some((event) => event.type === 'delete'));

    // A test event: what the receiver answered, how fast.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/^Test event delivered: HTTP 204 in \d+ ms\.$/).waitFor();
    assert.ok(receiver.events().some((event) => event.type === 'webhook.test'));

    // Pause, then resume: the state and the status line say so, and the service agrees.
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Webhook paused/)
      .waitFor();
    await page.getByRole('main').getByText('Paused', { exact: true }).first().waitFor();
    assert.equal((await api.getWebhook(made.id)).paused, true);
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    await page
      .getByRole('status')
      .getByText(/^Webhook resumed/)
      .waitFor();
    assert.equal((await api.getWebhook(made.id)).state, 'active');

    // A new secret, shown once, with until when the old one still signs.
    await page.getByRole('button', { name: 'Rotate secret…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('New signing secret').waitFor();
    const rotated = await secret.inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, firstSecret);
    await page.getByText(/The previous secret still signs every delivery beside this one until \w{3} \d+, \d{4}/).waitFor();

    // Delete, after a confirmation: back on the list, which is empty again.
    await page.getByRole('button', { name: 'Delete…' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText(/gets no more events/).waitFor();
    assert.deepEqual(await axeViolations(page, 'delete a webhook', 'dialog[open]'), []);
    await confirm.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByRole('status').getByText(`The webhook to ${receiver.url} is deleted: it gets no more events.`).waitFor();
    await page.getByText('No webhook yet: add one below.').waitFor();
    assert.deepEqual((await api.listWebhooks()).items, []);

    // Under a policy, a creation is a proposal: no secret yet, and the form links to it.
    await api.putPolicy([{ operation: 'webhook.create', approvals: 1, permission: 'webhooks:manage' }]);
    await form.getByLabel('URL').fill(receiver.url);
    await form.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Later' }).click();
    const held = form.getByRole('status').filter({ hasText: 'Needs approval:' });
    await held.getByText(/0 of 1 approval needed/).waitFor();
    const proposalId = (await held.locator('code').first().textContent())!;
    assert.match(proposalId, /^prp_/);
    assert.equal(await held.getByRole('link', { name: 'Open the proposal' }).getAttribute('href'), `#/proposals/${proposalId}`);
    assert.deepEqual((await api.listWebhooks()).items, []);

    // The browser logs each refused answer ("Failed to load resource"): the refused URL's 400 and nothing else.
    const refusal = /^console\.error: Failed to load resource: the server responded with a status of 400 /;
    assert.deepEqual(
      consoleErrors(page).filter((line) => !refusal.test(line)),
      [],
    );
  });
});
