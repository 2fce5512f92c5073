import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from 'viem';
import { assertNoConsoleErrors, injectWallet, useBrowser } from '../helpers/browser.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { compileContracts, deploy, type LocalChain, startLocalChain } from '../helpers/local-chain.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { base64Header, newWallet } from '../helpers/wallets.ts';

/** The console with the wallets admins have: the chain they are on, the lifetime they pick, switching accounts, contract wallets. */
describe('the console and the wallet', () => {
  const browser = useBrowser();
  let svc: TestService;
  let fixture: TenantFixture;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Wallets');
  });
  after(() => svc.close());

  test("the message carries the wallet's chain id and the lifetime the admin picked, which the header shows", async () => {
    const page = await browser.newPage();
    const injected = await injectWallet(page, {
      privateKey: fixture.ownerWallet.privateKey,
      name: 'Test Wallet',
      rdns: 'org.example.testwallet',
      chainId: 137,
    });
    await page.goto(`${svc.baseUrl}/console/`);
    await page.getByLabel('Signature valid for').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await page.getByRole('heading', { name: 'Who am I' }).waitFor();
    const message = injected.signed[0]!.text;
    assert.match(message, /\nChain ID: 137\n/);
    const issued = Date.parse(/\nIssued At: (\S+)/.exec(message)![1]!);
    const expires = Date.parse(/\nExpiration Time: (\S+)/.exec(message)![1]!);
    assert.equal(expires - issued, 3600 * 1000);
    await page.getByText(/^signed in until /).waitFor();
    assertNoConsoleErrors(page);
  });

  test('the admin switches accounts in the wallet: the console signs the old message out and asks to sign in again', async () => {
    const page = await browser.newPage();
    const injected = await injectWallet(page, {
      privateKey: fixture.ownerWallet.privateKey,
      name: 'Test Wallet',
      rdns: 'org.example.testwallet',
    });
    await page.goto(`${svc.baseUrl}/console/`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    await page.getByRole('heading', { name: 'Who am I' }).waitFor();
    const old = injected.signed[0]!;
    const oldHeaders = { 'X-WAL': fixture.ownerWallet.address, 'X-SIG': old.signature, 'X-MES': base64Header(old.text) };

    const other = newWallet();
    await injected.switchAccount(other.privateKey);
    await page.getByRole('alert').getByText(`The wallet switched to another account (${other.address})`).waitFor();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Signed out on the service too, not just forgotten by the page.
    await waitFor(async () => (await fetch(`${svc.baseUrl}/api/auth/test`, { headers: oldHeaders })).status === 401);
    assertNoConsoleErrors(page);
  });

  describe('a contract wallet, with AUTH_RPC_URL', () => {
    let chain: LocalChain;
    let rpcService: TestService;
    let smartAccount: Address;
    const owner = newWallet();

    before(async () => {
      const compiled = await compileContracts();
      chain = await startLocalChain();
      smartAccount = await deploy(chain, compiled.OwnerWallet!, [owner.address]);
      rpcService = await startTestService('sqlite', { transport: 'socket', env: { AUTH_RPC_URL: chain.rpcUrl } });
      const tenant = await rpcService.service.store.createTenant({ name: 'Smart accounts' });
      await rpcService.service.store.createAdmin({ tenantId: tenant.id, wallet: smartAccount, displayName: 'Safe-like account' });
    });
    after(async () => {
      await rpcService?.close();
      await chain?.stop();
    });

    test('signs in: the wallet shows the contract account, its owner key signs, the service checks it on chain (EIP-1271)', async () => {
      const page = await browser.newPage();
      await injectWallet(page, {
        privateKey: owner.privateKey,
        name: 'Smart Wallet',
        rdns: 'org.example.smart',
        accountAddress: smartAccount,
        chainId: 31337,
      });
      await page.goto(`${rpcService.baseUrl}/console/`);
      await page.getByRole('button', { name: 'Sign in with Smart Wallet' }).click();
      await page.getByRole('heading', { name: 'Who am I' }).waitFor();
      await page.locator('dl').getByText(smartAccount).waitFor();
      await page.getByText('Safe-like account').first().waitFor();
      assertNoConsoleErrors(page);
    });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
