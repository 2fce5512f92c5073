import type { Page } from 'playwright-core';
import { type BrowserSession, type InjectedWallet, injectWallet, type PageOptions } from './browser.ts';
import type { TestWallet } from './wallets.ts';

export interface ConsolePageOptions extends PageOptions {
  /** The console view to open, e.g. `#/channels/chn_…/backups`. */
  hash?: string;
  /** Runs before the page loads (an init script of the test's own). */
  before?: (page: Page) => Promise<unknown>;
}

/** A page of the console signed in as `wallet` (held by an injected "Test Wallet"), showing `hash`. */
export async function openSignedIn(
  browser: BrowserSession,
  baseUrl: string,
  wallet: TestWallet,
  options: ConsolePageOptions = {},
): Promise<{ page: Page; injected: InjectedWallet }> {
  const page = await browser.newPage({ width: options.width, timezoneId: options.timezoneId, locale: options.locale });
  await options.before?.(page);
  const injected = await injectWallet(page, { privateKey: wallet.privateKey, name: 'Test Wallet', rdns: 'org.example.testwallet' });
  await page.goto(`${baseUrl}/console/${options.hash ?? ''}`);
  await page.getByRole('button', { name: 'Sign in with Test Wallet' }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
  return { page, injected };
}
