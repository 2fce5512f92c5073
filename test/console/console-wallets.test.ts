import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from 'viem';
import { assertNoConsoleErrors, consoleErrors, injectWallet, useBrowser } from '../helpers/browser.ts';
import { openSignedIn } from '../helpers/console-page.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
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

  test('a second account of the wallet signed in with is added: it signs the typed data, the session stays the first account’s', async () => {
    const member = await createMemberAdmin(svc.service.store, fixture, { displayName: 'Two Accounts' });
    const { page, injected } = await openSignedIn(browser, svc.baseUrl, member.wallet);
    const wallets = page.getByRole('list', { name: 'Your wallets' });
    await wallets.getByText(member.wallet.address).waitFor();
    const second = newWallet();
    await injected.addAccount(second.privateKey);

    await page.getByRole('button', { name: 'Add a wallet…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Add from Test Wallet' }).click();
    await page.getByRole('status').getByText(`Wallet ${second.address} added`).waitFor();
    await wallets.getByText(second.address).waitFor();
    // The new account signed the challenge, typed data; every message (a sign-in) is the first account's.
    assert.deepEqual(
      injected.signedTypedData.map(({ address, typedData }) => [
        address,
        typedData.primaryType,
        (typedData.message as { wallet: string }).wallet,
      ]),
      [[second.address, 'AddWallet', second.address]],
    );
    assert.ok(injected.signed.length > 0);
    for (const { address } of injected.signed) assert.equal(address.toLowerCase(), member.wallet.address.toLowerCase());
    // Still signed in as the first account, in the page and on the service.
    await page.locator('dl').getByText(member.wallet.address).waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Sign in' }).count(), 0);
    const first = injected.signed[0]!;
    const session = await fetch(`${svc.baseUrl}/api/auth/test`, {
      headers: { 'X-WAL': member.wallet.address, 'X-SIG': first.signature, 'X-MES': base64Header(first.text) },
    });
    assert.equal(session.status, 200);
    assert.equal((await session.json()).walletAddress, member.wallet.address);
    // The page goes on working as that account: the list reloads after a reload of the page's data.
    await page.getByRole('button', { name: `Remove wallet ${second.address}` }).waitFor();
    assertNoConsoleErrors(page);
  });

  test('removing wallets: one’s own, and another admin’s with admins:manage; never the last, which says why; a stale list shows the refusal', async () => {
    const spare = newWallet();
    await svc.service.store.addAdminWallet(fixture.owner.id, spare.address);
    const withTwo = async (displayName: string) => {
      const made = await createMemberAdmin(svc.service.store, fixture, { displayName });
      const extra = newWallet();
      await svc.service.store.addAdminWallet(made.admin.id, extra.address);
      return { ...made, extra };
    };
    const wanda = await withTwo('Wanda Wallets');
    const stale = await withTwo('Stan Stale');
    const { page } = await openSignedIn(browser, svc.baseUrl, fixture.ownerWallet);

    // One's own: two, one removed; the last one's button is disabled, saying why.
    const mine = page.getByRole('list', { name: 'Your wallets' });
    await mine.getByText(spare.address).waitFor();
    await page.getByRole('button', { name: `Remove wallet ${spare.address}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove wallet' }).click();
    await page.getByRole('status').getByText(`Wallet ${spare.address} removed`).waitFor();
    assert.equal(await mine.getByRole('listitem').count(), 1);
    const lastOfMine = page.getByRole('button', { name: `Remove wallet ${fixture.ownerWallet.address}` });
    assert.equal(await lastOfMine.isDisabled(), true);
    assert.match((await lastOfMine.getAttribute('aria-describedby')) ?? '', /./);
    await page.getByText('An admin keeps at least one wallet').first().waitFor();
    assert.equal(await svc.service.store.findAdminByWallet(spare.address), undefined, 'removed on the service');

    // Another admin's, from the admins' list.
    await page.getByRole('link', { name: 'Admins', exact: true }).click();
    const wandas = page.getByRole('list', { name: 'Wallets of Wanda Wallets' });
    await wandas.waitFor();
    await page.getByRole('button', { name: `Remove wallet ${wanda.extra.address} of Wanda Wallets` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove wallet' }).click();
    await page.getByRole('status').getByText(`Wallet ${wanda.extra.address} removed from Wanda Wallets`).waitFor();
    await page.getByRole('button', { name: `Remove wallet ${wanda.wallet.address} of Wanda Wallets`, disabled: true }).waitFor();
    assert.deepEqual(
      (await svc.service.store.getAdmin(wanda.admin.id))!.wallets.map((w) => w.toLowerCase()),
      [wanda.wallet.address.toLowerCase()],
    );

    // Behind the page's back, one of Stan's two goes: removing the other, which the page still offers, is refused and says so.
    await svc.service.store.removeAdminWallet(stale.admin.id, stale.extra.address);
    await page.getByRole('button', { name: `Remove wallet ${stale.wallet.address} of Stan Stale` }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Remove wallet' }).click();
    await dialog.getByRole('alert').getByText('LAST_WALLET').waitFor();
    assert.equal((await svc.service.store.findAdminByWallet(stale.wallet.address))?.id, stale.admin.id, 'nothing changed');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    // The browser logs the refused request (409), and nothing else.
    assert.deepEqual(
      consoleErrors(page).map((line) => line.replace(/\(http.*\)$/, '')),
      ['console.error: Failed to load resource: the server responded with a status of 409 (Conflict) '],
    );
  });

  test('a wallet no admin holds: the sign-in says to ask an owner of the tenant for an invitation', async () => {
    const page = await browser.newPage();
    await injectWallet(page, { privateKey: newWallet().privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
    await page.goto(`${svc.baseUrl}/console/`);
    await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
    const refusal = page.getByRole('alert');
    await refusal.getByText('ask an owner of the tenant for an invitation').waitFor();
    await refusal.getByText('AUTH_UNKNOWN_WALLET').waitFor();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
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
