import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { createClient, fromViemAccount, type WalletAdminClient } from '../../src/client/index.ts';
import { axeViolations } from '../helpers/axe.ts';
import { consoleErrors, emulateColorScheme, screenshot, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { ageKeys, type OffsiteKeys } from '../helpers/offsite.ts';
import { registerS3Key, startTestS3, type TestS3 } from '../helpers/s3-server.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** One zone and language for the pictures, whatever the machine's: times show their zone. */
const LOCALE = { timezoneId: 'Europe/Berlin', locale: 'en-US' };

/** The tenant's own bucket key, apart from the service's: its secret must show nowhere once sent. */
const KEY_ID = 'CONSOLEKEY4R8T';
const SECRET = 'console-secret-5e0b7c2a9d1f3e6b8a4c';

/**
 * The Off-site copy page as an owner uses it, against a real S3 server (s3rver) on loopback: no
 * target yet; an identity pasted as a recipient refused before anything is sent; an endpoint on the
 * cloud's metadata address refused by the service; a target set (its secret cleared and never shown),
 * tested (which ships what is pending: the state moves to OK, with a head to publish); a replacement
 * a policy holds, which links to its proposal; stopping, which deletes nothing at the target. And
 * the page's link only for an admin holding offsite:manage. Shipping runs only when the test asks
 * (OFFSITE_TENANT_INTERVAL is an hour), so every state the page shows is the one the test made.
 */
describe('the off-site copy in the console', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;
  let api: WalletAdminClient;
  let bucket: TestS3;
  let keys: OffsiteKeys;
  let second: OffsiteKeys;

  before(async () => {
    registerS3Key(KEY_ID, SECRET);
    [keys, second, bucket] = await Promise.all([ageKeys(), ageKeys(), startTestS3()]);
    svc = await startTestService('sqlite', {
      transport: 'socket',
      env: { OUTBOUND_ALLOW: '127.0.0.0/8', OFFSITE_TENANT_INTERVAL: '3600' },
    });
    fixture = await createTenantFixture(svc.service.store, 'Offsite');
    api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
  });
  after(async () => {
    await svc?.close();
    await bucket?.close();
    for (const made of [keys, second]) if (made) await rm(made.dir, { recursive: true, force: true });
  });

  test('none set, refusals, set, tested to OK, held by a policy, stopped; the link only with offsite:manage', async () => {
    // A long prefix and two recipients: the words with no break that must wrap on a phone.
    const url = `s3://${bucket.bucket}/tenants/acme-industries-holding-gmbh/wallet-admin-offsite-copy`;
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet, LOCALE);
    await page.getByRole('banner').getByRole('link', { name: 'Off-site copy' }).click();
    await page.getByRole('heading', { level: 1, name: 'Off-site copy' }).waitFor();
    await page.getByText('No off-site copy yet: set its target below.').waitFor();
    assert.equal(await page.title(), 'Off-site copy · wallet-admin');

    const form = page.getByRole('form', { name: 'Set the target' });
    const secret = form.getByLabel('Secret access key', { exact: true });
    assert.equal(await secret.getAttribute('type'), 'password');
    await form.getByLabel('Bucket', { exact: true }).fill(url);
    await form.getByLabel('Access key id', { exact: true }).fill(KEY_ID);
    await secret.fill(SECRET);

    // An identity pasted where its recipient belongs is refused in the page: it is never sent.
    const identity = (await readFile(keys.identityFile, 'utf8')).match(/^AGE-SECRET-KEY-\S+$/m)![0];
    let puts = 0;
    page.on('request', (request) => {
      if (request.method() === 'PUT' && request.url().endsWith('/api/offsite')) puts++;
    });
    await form.getByLabel('Recipients', { exact: true }).fill(identity);
    await form.getByRole('button', { name: 'Set target' }).click();
    await form
      .getByRole('alert')
      .getByText(/^That is an identity/)
      .waitFor();
    assert.equal(puts, 0, 'nothing was sent');

    // The cloud's metadata address is never reached, whatever OUTBOUND_ALLOW says: the service's refusal, shown as every problem is.
    await form.getByLabel('Recipients', { exact: true }).fill(keys.recipient);
    await form.getByLabel('Endpoint (optional)', { exact: true }).fill('http://169.254.169.254');
    await form.getByRole('button', { name: 'Set target' }).click();
    await form.getByRole('alert').getByText('OUTBOUND_ADDRESS_REFUSED').waitFor();
    assert.equal(puts, 1);
    assert.equal(await secret.inputValue(), '', 'the secret is cleared once sent');
    assert.deepEqual(await axeViolations(page, 'off-site copy: none set, a refused endpoint'), []);
    for (const width of [1440, 360] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate(() => window.scrollTo(0, 0));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${width} px`);
      await screenshot(page, 'offsite-none', { width });
    }
    await page.setViewportSize({ width: 1440, height: 900 });

    // Set, against the S3 server: the page shows the target, pending, and nowhere the secret.
    await form.getByLabel('Endpoint (optional)', { exact: true }).fill(bucket.endpoint);
    await form.getByLabel('Region (optional)', { exact: true }).fill('eu-central-1');
    await form.getByLabel(/^Path-style requests/).check();
    await secret.fill(SECRET);
    await form.getByLabel('Recipients', { exact: true }).fill(`${keys.recipient}\n${second.recipient}`);
    await form.getByRole('button', { name: 'Set target' }).click();
    await page
      .getByRole('status')
      .getByText(/^Off-site target set: the copy goes to s3:\/\//)
      .waitFor();
    const target = page.getByRole('region', { name: 'Off-site copy' });
    await target.getByText('Pending', { exact: true }).waitFor();
    const facts = await target.locator('dl').innerText();
    for (const shown of [url, bucket.endpoint, 'eu-central-1', KEY_ID, keys.recipient, second.recipient]) {
      assert.ok(facts.includes(shown), `${shown} in ${facts}`);
    }
    const standing = page.getByRole('region', { name: 'How the copy stands' });
    assert.match(await standing.innerText(), /changes? not in the copy yet[\s\S]*Never tested/);
    const replace = page.getByRole('form', { name: 'Replace the target' });
    assert.equal(await replace.getByLabel('Bucket', { exact: true }).inputValue(), url, 'the form starts from the target set');
    assert.equal(await replace.getByLabel('Secret access key', { exact: true }).inputValue(), '', 'and asks for the secret again');
    assert.ok(!(await page.content()).includes(SECRET), 'the secret is nowhere in the page');

    // The test ships what is pending: the state moves to OK, up to date, with a head to publish.
    await target.getByRole('button', { name: 'Test the target' }).click();
    await target.getByRole('status').getByText('Test passed:').waitFor();
    await target.getByText('OK', { exact: true }).waitFor();
    await standing.getByText('Up to date: the copy holds every change').waitFor();
    const head = JSON.parse(await standing.getByRole('textbox', { name: 'Head to publish' }).inputValue());
    assert.match(head.generation, /^g\d{8}T\d{6}Z-/);
    assert.equal(head.segment, 0, 'the first copy is a snapshot');
    assert.match(await standing.innerText(), /Last check\s+Passed reached /);
    const shipped = await bucket.keys();
    assert.ok(
      shipped.some((key) => key.startsWith('tenants/acme-industries-holding-gmbh/wallet-admin-offsite-copy/generations/')),
      shipped.join('\n'),
    );

    // The pictures and axe, at a desktop's and a small phone's width, light and dark: no sideways scroll.
    for (const width of [1440, 360] as const) {
      await page.setViewportSize({ width, height: 900 });
      // From the top: a full-page picture of a scrolled page paints the sticky status line over the heading.
      await page.evaluate(() => window.scrollTo(0, 0));
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${width} px`);
      assert.deepEqual(await axeViolations(page, `the off-site copy (${width} px)`), []);
      await screenshot(page, 'offsite', { width });
      await emulateColorScheme(page, 'dark');
      assert.deepEqual(await axeViolations(page, `the off-site copy, dark (${width} px)`), []);
      await screenshot(page, 'offsite-dark', { width });
      await emulateColorScheme(page, 'light');
    }
    await page.setViewportSize({ width: 1440, height: 900 });

    // Stop, after a confirmation that says nothing at the target is deleted: and nothing is.
    await target.getByRole('button', { name: 'Stop shipping…' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText('Nothing at the target is deleted:').waitFor();
    assert.deepEqual(await axeViolations(page, 'stop shipping', 'dialog[open]'), []);
    await confirm.getByRole('button', { name: 'Stop shipping' }).click();
    await page
      .getByRole('status')
      .getByText(/^Shipping stopped: nothing was deleted at s3:\/\//)
      .waitFor();
    await page.getByText('No off-site copy yet: set its target below.').waitFor();
    assert.deepEqual(await bucket.keys(), shipped, 'the copy at the target is as it was');

    // Under a policy, setting a target is a proposal: nothing is set yet, and the form links to it.
    await api.putPolicy([{ operation: 'offsite.change', approvals: 1, permission: 'offsite:manage' }]);
    await form.getByLabel('Bucket', { exact: true }).fill(url);
    await form.getByLabel('Endpoint (optional)', { exact: true }).fill(bucket.endpoint);
    await form.getByLabel(/^Path-style requests/).check();
    await form.getByLabel('Access key id', { exact: true }).fill(KEY_ID);
    await secret.fill(SECRET);
    await form.getByLabel('Recipients', { exact: true }).fill(keys.recipient);
    await form.getByRole('button', { name: 'Set target' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Later' }).click();
    const held = form.getByRole('status').filter({ hasText: 'Needs approval:' });
    await held.getByText(/0 of 1 approval needed/).waitFor();
    assert.equal(await secret.inputValue(), '', 'the secret is cleared once sent, held or not');
    await page.getByText('No off-site copy yet: set its target below.').waitFor();
    const proposalId = (await held.locator('code').first().textContent())!;
    assert.match(proposalId, /^prp_/);
    assert.equal(await held.getByRole('link', { name: 'Open the proposal' }).getAttribute('href'), `#/proposals/${proposalId}`);

    // The proposal's page says what it sets, the sealed secret left out.
    await held.getByRole('link', { name: 'Open the proposal' }).click();
    const plan = page.locator('.proposal-plan').first();
    await plan.getByText("The bucket key's secret goes with it, sealed: it is never shown.").waitFor();
    assert.ok((await plan.innerText()).includes(url));
    assert.ok(!(await page.locator('main').innerText()).includes('secretSealed'));

    // Without offsite:manage no link; the page itself says the service's refusal.
    const member = await createMemberAdmin(svc.service.store, fixture, { permissions: ['webhooks:manage'], displayName: 'Hook Keeper' });
    const { page: memberPage } = await openSignedIn(browser, svc.baseUrl, member.wallet, { ...LOCALE, hash: '#/offsite' });
    await memberPage.getByRole('main').getByRole('alert').getByText('PERMISSION_DENIED').waitFor();
    await memberPage.getByRole('banner').getByRole('link', { name: 'Webhooks' }).waitFor();
    assert.equal(await memberPage.getByRole('banner').getByRole('link', { name: 'Off-site copy' }).count(), 0);

    // The browser logs each refused answer: the refused endpoint's 400, no target's 404, the member's 403; nothing else.
    const refusal = /^console\.error: Failed to load resource: the server responded with a status of 40[034] /;
    assert.deepEqual(
      [...consoleErrors(page), ...consoleErrors(memberPage)].filter((line) => !refusal.test(line)),
      [],
    );
  });
});
