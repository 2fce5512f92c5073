import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyMessage } from 'viem';
import { DEMO_PRIVATE_KEY } from '../../src/demo/demo-seed.ts';
import { assertNoConsoleErrors, consoleErrors, emulateColorScheme, injectWallet, screenshot, useBrowser } from '../helpers/browser.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

describe('the console in Chromium', () => {
  const browser = useBrowser();
  let svc: TestService;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
  });
  after(() => svc.close());

  test('the page loads its hashed script under the CSP, which blocks an inline script; no console errors', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${svc.baseUrl}/console/`);
    assert.equal(response?.status(), 200);
    assert.match(String(response?.headers()['content-security-policy']), /script-src 'self';.*frame-ancestors 'none'/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const scripts = await page.evaluate(() => Array.from(document.scripts, (script) => script.src));
    assert.equal(scripts.length, 1);
    assert.match(scripts[0]!, /\/console\/assets\/main-[A-Z0-9]+\.js$/);
    assertNoConsoleErrors(page);

    // page.evaluate is the debugger's, outside the policy; a <script> the page would run is not.
    await page.addScriptTag({ content: 'window.inlineScriptRan = true;' }).catch(() => undefined);
    assert.equal(await page.evaluate(() => (window as unknown as { inlineScriptRan?: boolean }).inlineScriptRan), undefined);
    assert.ok(
      consoleErrors(page).some((line) => /Content Security Policy/.test(line)),
      `the refusal is logged: ${consoleErrors(page).join('\n')}`,
    );
  });

  test('EIP-6963 discovery finds the injected wallet, whose personal_sign signature verifies for its address', async () => {
    const page = await browser.newPage();
    const wallet = await injectWallet(page, { privateKey: DEMO_PRIVATE_KEY, name: 'Test Wallet', rdns: 'org.example.testwallet' });
    await page.goto(`${svc.baseUrl}/console/`);
    const message = 'wallet-admin wants you to sign in\nwith ünïcode';
    const found = await page.evaluate(async (text) => {
      type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };
      const announced: { info: { uuid: string; name: string; icon: string; rdns: string }; provider: Provider }[] = [];
      let frozen = true;
      window.addEventListener('eip6963:announceProvider', (event) => {
        const detail = (event as CustomEvent).detail;
        frozen &&= Object.isFrozen(detail);
        announced.push(detail);
      });
      // Wallets answer synchronously, inside this dispatch.
      window.dispatchEvent(new Event('eip6963:requestProvider'));
      const { info, provider } = announced[0]!;
      const before = await provider.request({ method: 'eth_accounts' });
      const [address] = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
      const hex = `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
      const signature = await provider.request({ method: 'personal_sign', params: [hex, address] });
      const chainId = await provider.request({ method: 'eth_chainId' });
      return { count: announced.length, frozen, info, before, address, hex, signature, chainId };
    }, message);

    assert.equal(found.count, 1);
    assert.ok(found.frozen, 'the announcement is frozen');
    assert.equal(found.info.name, 'Test Wallet');
    assert.equal(found.info.rdns, 'org.example.testwallet');
    assert.match(found.info.icon, /^data:image\/svg\+xml;/);
    assert.match(found.info.uuid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(found.before, [], 'no account before the site connects');
    assert.equal(found.address, wallet.address);
    assert.equal(found.chainId, '0x1');
    const signature = found.signature as `0x${string}`;
    assert.ok(await verifyMessage({ address: wallet.address, message, signature }), 'a real signature of the message');
    assert.deepEqual(wallet.signed, [{ hex: found.hex, text: message, signature, address: wallet.address }]);
    assertNoConsoleErrors(page);
  });

  test('dark scheme and both widths: the page answers prefers-color-scheme, full-page PNGs are written', async () => {
    const page = await browser.newPage();
    await emulateColorScheme(page, 'dark');
    await page.goto(`${svc.baseUrl}/console/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), true);
    for (const width of [1440, 390] as const) {
      const file = await screenshot(page, 'smoke-dark', { width });
      assert.ok(file.endsWith(`smoke-dark-${width}.png`));
      assert.equal(page.viewportSize()?.width, width);
    }
    assertNoConsoleErrors(page);
  });

  test('legacy: window.ethereum instead of an announcement', async () => {
    const page = await browser.newPage();
    await injectWallet(page, { privateKey: DEMO_PRIVATE_KEY, name: 'Old Wallet', rdns: 'org.example.old', legacy: true });
    await page.goto(`${svc.baseUrl}/console/`);
    const seen = await page.evaluate(() => {
      let announced = 0;
      window.addEventListener('eip6963:announceProvider', () => announced++);
      window.dispatchEvent(new Event('eip6963:requestProvider'));
      const ethereum = (window as unknown as { ethereum?: { request(args: { method: string }): Promise<unknown> } }).ethereum;
      return ethereum
        ? ethereum.request({ method: 'eth_chainId' }).then((chainId) => ({ announced, chainId }))
        : { announced, chainId: null };
    });
    assert.deepEqual(seen, { announced: 0, chainId: '0x1' });
  });
});
