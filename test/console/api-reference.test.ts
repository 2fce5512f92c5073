import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertNoConsoleErrors, injectWallet, useBrowser } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet } from '../helpers/wallets.ts';

describe('the API reference (/api/docs) in Chromium', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Reference');
  });
  after(() => svc.close());

  /** What `wallet-admin sign` prints for the fixture's owner, for this service ("--json": its JSON). */
  async function signedByCli(...extra: string[]): Promise<string> {
    const origin = new URL(svc.baseUrl);
    const args = ['sign', '--private-key', fixture.ownerWallet.privateKey, '--domain', origin.host, '--uri', origin.origin, ...extra];
    const signed = await runCli(args, {});
    assert.equal(signed.code, 0, signed.stderr);
    return signed.stdout;
  }

  async function openAuthorizeDialog(page: Page): Promise<void> {
    await page.goto(`${svc.baseUrl}/api/docs`);
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('.dialog-ux').waitFor();
  }

  /** GET /api/auth/test through "Try it out": the status shown, and the wallet headers the page sent. */
  async function tryAuthTest(page: Page): Promise<{ status: string; sent: Record<string, string> }> {
    const operation = page.locator('#operations-auth-getAuthTest');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const sentRequest = page.waitForRequest((sent) => new URL(sent.url()).pathname === '/api/auth/test');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const sent = (await sentRequest).headers();
    const status = operation.locator('.live-responses-table tbody .response-col_status').first();
    await status.waitFor();
    return {
      status: (await status.innerText()).trim(),
      sent: { 'X-WAL': sent['x-wal']!, 'X-SIG': sent['x-sig']!, 'X-MES': sent['x-mes']! },
    };
  }

  test('renders the operations from /api/openapi.json, under its CSP, asking nothing of another origin', async () => {
    const page = await browser.newPage();
    const origin = new URL(svc.baseUrl).origin;
    const requested: string[] = [];
    page.on('request', (sent) => requested.push(sent.url()));
    const response = await page.goto(`${svc.baseUrl}/api/docs`);
    assert.equal(response?.status(), 200);
    assert.match(String(response?.headers()['content-security-policy']), /script-src 'self';.*connect-src 'self'/);
    await page.getByText('/api/channels/{channelRef}/folders/{folderName}/files/{filename}/restore').first().waitFor();
    await page.getByText('Restore a file from a backup', { exact: false }).first().waitFor();
    await page.getByRole('button', { name: 'Authorize' }).waitFor();
    assert.ok(requested.includes(`${origin}/api/openapi.json`), requested.join('\n'));
    assert.deepEqual(
      requested.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')),
      [],
      'no request left the origin',
    );
    assertNoConsoleErrors(page);
  });

  test('the address with a trailing slash leads to the same page', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${svc.baseUrl}/api/docs/`);
    assert.equal(response?.status(), 200);
    assert.equal(new URL(page.url()).pathname, '/api/docs');
    await page.getByRole('button', { name: 'Authorize' }).waitFor();
  });

  test('Authorize takes all that wallet-admin sign prints in one paste, and "Try it out" then signs in', async () => {
    const page = await browser.newPage();
    const printed = await signedByCli();
    await openAuthorizeDialog(page);
    await page.getByLabel('The output of wallet-admin sign').fill(printed);
    await page.getByRole('button', { name: 'Authorize all three' }).click();
    await page.locator('.dialog-ux').waitFor({ state: 'detached' });
    // Swagger UI's own lock: every scheme is authorized.
    await page.locator('.auth-wrapper .authorize.locked').waitFor();

    const { status, sent } = await tryAuthTest(page);
    const expected = Object.fromEntries(
      printed
        .trim()
        .split('\n')
        .map((line) => line.split(': ') as [string, string])
        .filter(([name]) => name !== 'X-Wallet-Address'),
    );
    assert.deepEqual(sent, expected, 'the page sent the three pasted headers');
    assert.equal(status, '200');
    await page.getByText(`"walletAddress": "${fixture.ownerWallet.address}"`).first().waitFor();
    assertNoConsoleErrors(page);
  });

  test('the --json output pastes as well; a paste missing a header says which, and authorizes nothing', async () => {
    const page = await browser.newPage();
    await openAuthorizeDialog(page);
    const box = page.getByLabel('The output of wallet-admin sign');
    const printed = await signedByCli('--json');
    await box.fill(printed.replace(/,"X-SIG":"[^"]*"/, ''));
    await page.getByRole('button', { name: 'Authorize all three' }).click();
    assert.match(await page.getByRole('alert').innerText(), /^No X-SIG in what was pasted/);
    assert.equal(await page.locator('.auth-wrapper .authorize.locked').count(), 0, 'nothing authorized');

    await box.fill(printed);
    await page.getByRole('button', { name: 'Authorize all three' }).click();
    await page.locator('.auth-wrapper .authorize.locked').waitFor();
    assert.equal((await tryAuthTest(page)).status, '200');
    assertNoConsoleErrors(page);
  });

  test('Authorize offers the browser wallets that announce themselves (EIP-6963): a refusal authorizes nothing; one signature does, and "Try it out" signs in', async () => {
    const page = await browser.newPage();
    // Two wallets announce themselves: one whose owner declines, then the owner's.
    await injectWallet(page, { privateKey: newWallet().privateKey, name: 'Shy Wallet', rdns: 'org.example.shy', rejectSignatures: true });
    const wallet = await injectWallet(page, {
      privateKey: fixture.ownerWallet.privateKey,
      name: 'Test Wallet',
      rdns: 'org.example.testwallet',
    });
    await openAuthorizeDialog(page);
    await page.getByRole('button', { name: 'Sign in with Shy Wallet' }).click();
    await page.getByRole('alert').getByText('The wallet declined to sign. Nothing was signed.').waitFor();
    assert.equal(await page.locator('.auth-wrapper .authorize.locked').count(), 0, 'nothing authorized');

    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await page.locator('.dialog-ux').waitFor({ state: 'detached' });
    await page.locator('.auth-wrapper .authorize.locked').waitFor();

    // The wallet signed one Sign-In with Ethereum message for this site, with a nonce of the service.
    assert.equal(wallet.signed.length, 1);
    const origin = new URL(svc.baseUrl);
    assert.match(
      wallet.signed[0]!.text,
      new RegExp(`^${origin.host} wants you to sign in with your Ethereum account:\n${fixture.ownerWallet.address}\n`),
    );
    assert.match(wallet.signed[0]!.text, /\nSign in to the wallet-admin API reference\.\n/);
    assert.match(wallet.signed[0]!.text, new RegExp(`\nURI: ${origin.origin}\n`));

    const { status, sent } = await tryAuthTest(page);
    assert.equal(status, '200');
    assert.equal(sent['X-WAL'], fixture.ownerWallet.address);
    assert.equal(sent['X-SIG'], wallet.signed[0]!.signature);
    await page.getByText(`"walletAddress": "${fixture.ownerWallet.address}"`).first().waitFor();
    assertNoConsoleErrors(page);
  });

  test("an operation shows its answers' descriptions and real examples, not made-up ones", async () => {
    const page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/api/docs#/auth/getAuthTest`);
    const operation = page.locator('#operations-auth-getAuthTest');
    await operation.locator('.responses-wrapper').waitFor();
    const text = await operation.innerText();
    assert.match(text, /Signed in: the principal and the headers received/);
    assert.match(text, /"displayName": "Demo owner"/);
    assert.match(text, /"instance": "\/api\/auth\/test"/);
    assert.doesNotMatch(text, /Default Response|additionalProp/);
    assertNoConsoleErrors(page);
  });
});
