import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEMO_PRIVATE_KEY } from '../../src/demo/demo-seed.ts';
import { assertNoConsoleErrors, injectWallet, useBrowser } from '../helpers/browser.ts';
import { type ServiceProcess, spawnService, waitForOutput, waitUntilReady } from '../helpers/service-process.ts';
import { freePort } from '../helpers/test-service.ts';

/**
 * What the README and docs/console.md promise a new user: start the service on its defaults, open
 * the console URL it prints, sign in with the development wallet, restore a file of the demo data,
 * find it in the audit log. The service runs as `npm start` runs it (its own process, the compiled CLI).
 */
describe('first run: from the printed console URL to a restore in the audit log', () => {
  const browser = useBrowser();
  let served: ServiceProcess;
  let dataDir: string;
  let consoleUrl: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'wa-first-run-'));
    const port = await freePort();
    served = spawnService({ DATA_DIR: dataDir, PORT: String(port) });
    consoleUrl = (await waitForOutput(served, /admin console at (http:\/\/\S+\/console\/)/))[1]!;
    await waitUntilReady(served, new URL(consoleUrl).origin);
  });
  after(async () => {
    served.child.kill('SIGTERM');
    await served.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  test('sign in with the demo wallet, restore welcome/prices.csv from its backup, see the restore in the audit log', async () => {
    assert.equal(consoleUrl, `${new URL(consoleUrl).origin}/console/`);
    const page = await browser.newPage();
    await injectWallet(page, { privateKey: DEMO_PRIVATE_KEY, name: 'MetaMask', rdns: 'io.metamask' });
    await page.goto(consoleUrl);
    await page.getByRole('button', { name: 'Sign in with MetaMask' }).click();
    // The published key is signed in: every page says so, and how to put a wallet of one's own in its place.
    const banner = page.getByRole('complementary', { name: "This wallet's key is public." });
    await banner.getByText(/^wallet-admin admin set-wallet --admin adm_\w+ --wallet 0xYOUR_WALLET_ADDRESS$/).waitFor();
    await banner.getByText(/Hardhat\/Anvil account #0/).waitFor();
    await banner.getByRole('link', { name: 'Your wallets' }).waitFor();
    // As docs/console.md walks through it: Channels (top left) → demo → welcome → prices.csv.
    await page.getByRole('banner').getByText('Channels', { exact: true }).click();
    await page.getByRole('list', { name: 'Your channels' }).getByRole('link', { name: 'demo' }).click();
    await page.getByRole('link', { name: /^welcome/ }).click();
    await page.getByRole('link', { name: 'prices.csv' }).click();
    await page.getByRole('button', { name: /^Restore backup of / }).click();
    await page.getByRole('dialog', { name: 'Restore prices.csv?' }).getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('button', { name: 'Undo restore' }).waitFor();
    await page.getByRole('link', { name: 'Audit log' }).click();
    const first = page.locator('.audit-table tbody tr').first();
    await first.waitFor();
    assert.match(String(await first.textContent()), /restore.*ok.*welcome\/prices\.csv.*Demo owner.*Backup of /);

    // The backup the demo data came with says so, rather than passing for the owner's own.
    await page.getByRole('link', { name: 'Backups' }).click();
    await page.getByRole('cell', { name: /^Demo data/ }).waitFor();
    await banner.waitFor();
    assertNoConsoleErrors(page);
  });
});
