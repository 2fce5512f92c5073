import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { serverNeeded } from './backends.ts';

/**
 * Real-browser tests: Debian's Chromium, driven by playwright-core (no browser download). One
 * browser per test file (`useBrowser`), a fresh context per page, an injected EIP-1193 wallet that
 * signs in Node with a real key, and the page's console errors collected for assertions.
 */

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface PageOptions {
  /** 1440 unless given. */
  width?: number;
  /** The zone and locale the page formats times in (IANA name, BCP 47 tag): the machine's unless given. */
  timezoneId?: string;
  locale?: string;
}

export interface BrowserSession {
  /** A page in a context of its own (no shared storage), its console watched. */
  newPage(options?: PageOptions): Promise<Page>;
}

/**
 * The file's one Chromium, launched on first use and closed in `after` of the suite (or file) that
 * calls this. A missing Chromium fails the tests: a skipped browser test would pass unnoticed.
 */
export function useBrowser(): BrowserSession {
  let browser: Promise<Browser> | undefined;
  const contexts: BrowserContext[] = [];
  after(async () => {
    // A launch that failed has failed its tests already; thrown again here it would stop the file's
    // other after hooks, and a service left running keeps the file from ever ending.
    const opened = await browser?.catch(() => undefined);
    if (opened === undefined) return;
    await Promise.all(contexts.map((context) => context.close()));
    await opened.close();
  });
  return {
    async newPage(options = {}) {
      browser ??= launchChromium();
      const context = await (await browser).newContext({
        viewport: { width: options.width ?? 1440, height: 900 },
        timezoneId: options.timezoneId,
        locale: options.locale,
      });
      contexts.push(context);
      const page = await context.newPage();
      watchConsole(page);
      await allowSerializedFunctions(page);
      return page;
    },
  };
}

/** Debian's Chromium, headless; a missing one is an error that says how to get it. */
export async function launchChromium(): Promise<Browser> {
  serverNeeded('Chromium');
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH to one`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}

/**
 * tsx compiles with esbuild's keepNames, which wraps named functions in calls to a `__name` helper;
 * a function Playwright serializes into the page (evaluate, addInitScript) needs it there. Call it
 * before any other init script of the page.
 */
export async function allowSerializedFunctions(page: Page): Promise<void> {
  await page.addInitScript({ content: 'globalThis.__name = (target) => target;' });
}

// ---------------------------------------------------------------------------------------------
// Console errors, and requests that never completed

const consoleProblems = new WeakMap<Page, string[]>();
const requestFailures = new WeakMap<Page, string[]>();

function watchConsole(page: Page): void {
  const problems: string[] = [];
  consoleProblems.set(page, problems);
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') {
      const { url, lineNumber } = message.location();
      problems.push(`console.${message.type()}: ${message.text()}${url ? ` (${url}:${lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.stack ?? error.message}`));
  const failures: string[] = [];
  requestFailures.set(page, failures);
  page.on('requestfailed', (request) => failures.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`));
}

/**
 * The requests of the page that did not complete, as the network panel shows them: an answer whose
 * body the page cancelled or dropped unread is one (net::ERR_ABORTED), even a HEAD's empty body.
 */
export function failedRequests(page: Page): readonly string[] {
  const failures = requestFailures.get(page);
  assert.ok(failures, 'a page of useBrowser().newPage()');
  return failures;
}

/** The console errors and warnings and the uncaught page errors so far, in order. */
export function consoleErrors(page: Page): readonly string[] {
  const problems = consoleProblems.get(page);
  assert.ok(problems, 'a page of useBrowser().newPage()');
  return problems;
}

export function assertNoConsoleErrors(page: Page): void {
  assert.deepEqual(consoleErrors(page), [], `the page at ${page.url()} logged errors or warnings`);
}

// ---------------------------------------------------------------------------------------------
// Screenshots and appearance

/** Full-page PNGs: .cache/screenshots (git-ignored), or docs/console with WRITE_SCREENSHOTS=1. */
const SCREENSHOT_DIR = path.join(REPO_ROOT, process.env.WRITE_SCREENSHOTS === '1' ? 'docs/console' : '.cache/screenshots');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Sets the viewport's width (1440: desktop, 390: phone, 360: a small phone), takes a full-page PNG `<name>-<width>.png`; returns its path. */
export async function screenshot(page: Page, name: string, options: { width: 1440 | 390 | 360 }): Promise<string> {
  const height = page.viewportSize()?.height ?? 900;
  await page.setViewportSize({ width: options.width, height });
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}-${options.width}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const png = await readFile(file);
  assert.ok(png.length > PNG_SIGNATURE.length && png.subarray(0, 8).equals(PNG_SIGNATURE), `${file} is a PNG`);
  return file;
}

export function emulateColorScheme(page: Page, colorScheme: 'light' | 'dark'): Promise<void> {
  return page.emulateMedia({ colorScheme });
}

// ---------------------------------------------------------------------------------------------
// The injected wallet

export interface WalletOptions {
  privateKey: `0x${string}`;
  /** EIP-6963 info: the name and reverse-DNS id a wallet picker shows. */
  name: string;
  rdns: string;
  uuid?: string;
  /** 1 unless given; `eth_chainId` answers it in hex. */
  chainId?: number;
  /** `window.ethereum` instead of an EIP-6963 announcement: an older wallet. */
  legacy?: boolean;
  /** personal_sign fails as when the user presses "Reject" (EIP-1193 code 4001). */
  rejectSignatures?: boolean;
  /**
   * The account the wallet shows, when it is not the key's own: a contract wallet (a smart account)
   * whose owner key signs, the signature checked on chain by EIP-1271.
   */
  accountAddress?: `0x${string}`;
}

export interface SignedMessage {
  /** The bytes signed, as the page passed them (0x-hex). */
  hex: `0x${string}`;
  /** The same bytes as UTF-8 text (a SIWE message reads as itself). */
  text: string;
  signature: `0x${string}`;
  /** The account the page asked to sign. */
  address: string;
}

export interface SignedTypedData {
  /** The typed data as the page passed it to eth_signTypedData_v4 (JSON text, parsed). */
  typedData: Record<string, unknown>;
  signature: `0x${string}`;
  /** The account the page asked to sign. */
  address: string;
}

export interface InjectedWallet {
  address: `0x${string}`;
  /** Every message the page had signed, in order. */
  signed: SignedMessage[];
  /** Every EIP-712 typed data the page had signed (eth_signTypedData_v4), in order. */
  signedTypedData: SignedTypedData[];
  /** As when the admin picks another account in the wallet: it signs with that key and emits accountsChanged. */
  switchAccount(privateKey: `0x${string}`): Promise<void>;
  /**
   * As when the admin creates or imports a second account in the wallet: the wallet holds it, but
   * shares it with the page only once the page asks for accounts (wallet_requestPermissions), when
   * the admin picks it (it becomes the selected one) and keeps the others shared, as MetaMask's
   * account picker does. It signs with its own key when the page names it.
   */
  addAccount(privateKey: `0x${string}`): Promise<void>;
}

/** What the page-side provider gets; serializable. */
interface ProviderConfig {
  address: string;
  chainId: number;
  legacy: boolean;
  rejectSignatures: boolean;
  signFunction: string;
  /** The page-global function through which the page's eth_signTypedData_v4 reaches Node. */
  signTypedDataFunction: string;
  /** The page-global function through which Node switches the account. */
  switchFunction: string;
  /** The page-global function through which Node gives the wallet another account. */
  addAccountFunction: string;
  info: { uuid: string; name: string; icon: string; rdns: string };
}

const WALLET_ICON = `data:image/svg+xml;base64,${Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#f6851b"/></svg>',
).toString('base64')}`;

/**
 * Gives the page (from its next navigation on) a browser wallet holding `privateKey`: an EIP-1193
 * provider announced per EIP-6963 (or set as window.ethereum with `legacy`). The page's
 * personal_sign reaches Node, which signs with viem: a real secp256k1 signature the service checks.
 */
export async function injectWallet(page: Page, options: WalletOptions): Promise<InjectedWallet> {
  let account = privateKeyToAccount(options.privateKey);
  /** The wallet's accounts by address (lowercase): the page names the one that signs. */
  const keys = new Map([[(options.accountAddress ?? account.address).toLowerCase(), account]]);
  const signer = (address: string) => {
    const key = keys.get(address.toLowerCase());
    if (key === undefined) throw new Error(`The test wallet holds no key for ${address}`);
    return key;
  };
  // Names of their own, so that two wallets on one page sign with their own keys.
  const id = randomUUID().replaceAll('-', '');
  const signFunction = `__walletSign_${id}`;
  const signTypedDataFunction = `__walletSignTypedData_${id}`;
  const switchFunction = `__walletSwitch_${id}`;
  const addAccountFunction = `__walletAddAccount_${id}`;
  const wallet: InjectedWallet = {
    address: options.accountAddress ?? account.address,
    signed: [],
    signedTypedData: [],
    async switchAccount(privateKey) {
      account = privateKeyToAccount(privateKey);
      keys.set(account.address.toLowerCase(), account);
      wallet.address = account.address;
      await page.evaluate(({ name, address }) => (globalThis as unknown as Record<string, (a: string) => void>)[name]!(address), {
        name: switchFunction,
        address: account.address,
      });
    },
    async addAccount(privateKey) {
      const added = privateKeyToAccount(privateKey);
      keys.set(added.address.toLowerCase(), added);
      await page.evaluate(({ name, address }) => (globalThis as unknown as Record<string, (a: string) => void>)[name]!(address), {
        name: addAccountFunction,
        address: added.address,
      });
    },
  };
  await page.exposeFunction(signFunction, async (hex: `0x${string}`, address: string) => {
    const signature = await signer(address).signMessage({ message: { raw: hex } });
    wallet.signed.push({ hex, text: Buffer.from(hex.slice(2), 'hex').toString('utf8'), signature, address });
    return signature;
  });
  await page.exposeFunction(signTypedDataFunction, async (json: string, address: string) => {
    // As a wallet does: the JSON text parsed and signed as it is, its EIP712Domain type included.
    const signature = await signer(address).signTypedData(JSON.parse(json) as Parameters<typeof account.signTypedData>[0]);
    wallet.signedTypedData.push({ typedData: JSON.parse(json) as Record<string, unknown>, signature, address });
    return signature;
  });
  const config: ProviderConfig = {
    address: wallet.address,
    chainId: options.chainId ?? 1,
    legacy: options.legacy ?? false,
    rejectSignatures: options.rejectSignatures ?? false,
    signFunction,
    signTypedDataFunction,
    switchFunction,
    addAccountFunction,
    info: { uuid: options.uuid ?? randomUUID(), name: options.name, icon: WALLET_ICON, rdns: options.rdns },
  };
  await page.addInitScript(installProvider, config);
  return wallet;
}

/** Runs in the page, before its own scripts: self-contained (Playwright sends its source). */
function installProvider(config: ProviderConfig): void {
  type Listener = (value: unknown) => void;
  const listeners = new Map<string, Set<Listener>>();
  const emit = (event: string, value: unknown) => {
    for (const listener of listeners.get(event) ?? []) listener(value);
  };
  const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
  const hexOf = (text: string) => `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, '0')).join('')}`;
  // Looked up at each call: Playwright installs exposed functions by init scripts of its own.
  const sign = (hex: string, address: string) =>
    (globalThis as unknown as Record<string, (hex: string, address: string) => Promise<string>>)[config.signFunction]!(hex, address);
  const signTypedData = (json: string, address: string) =>
    (globalThis as unknown as Record<string, (json: string, address: string) => Promise<string>>)[config.signTypedDataFunction]!(
      json,
      address,
    );
  let connected = false;
  let chainId = config.chainId;
  /** The wallet's accounts, the selected one first; `shared`: those the page may see and use. */
  let accounts = [config.address];
  let shared: string[] = [];
  const exposed = () => (connected ? accounts.filter((a) => shared.includes(a)) : []);
  const isShared = (address: unknown) => typeof address === 'string' && shared.some((a) => a.toLowerCase() === address.toLowerCase());
  (globalThis as unknown as Record<string, (address: string) => void>)[config.switchFunction] = (address) => {
    // The wallet holds and shares that one account now.
    accounts = [address];
    shared = [address];
    if (connected) emit('accountsChanged', exposed());
  };
  (globalThis as unknown as Record<string, (address: string) => void>)[config.addAccountFunction] = (address) => {
    accounts = [...accounts, address];
  };

  const provider = {
    async request({ method, params }: { method: string; params?: unknown[] }): Promise<unknown> {
      switch (method) {
        case 'eth_accounts':
          return exposed();
        case 'eth_requestAccounts':
          if (!connected) {
            connected = true;
            shared = [accounts[0]!];
            emit('connect', { chainId: `0x${chainId.toString(16)}` });
            emit('accountsChanged', exposed());
          }
          return exposed();
        case 'wallet_requestPermissions': {
          // The admin, in the wallet's account picker, shares every account and picks the newest.
          connected = true;
          shared = [...accounts];
          accounts = [accounts[accounts.length - 1]!, ...accounts.slice(0, -1)];
          emit('accountsChanged', exposed());
          return [{ parentCapability: 'eth_accounts' }];
        }
        case 'eth_chainId':
          return `0x${chainId.toString(16)}`;
        case 'personal_sign': {
          const [message, address] = (params ?? []) as [string, string];
          if (!connected) throw rpcError(4100, 'The site is not connected: call eth_requestAccounts first');
          if (!isShared(address)) throw rpcError(4100, `This wallet shares ${shared.join(', ')} with the site, not ${address}`);
          if (config.rejectSignatures) throw rpcError(4001, 'User rejected the request.');
          // Wallets take the message as hex (what EIP-1193 dapps send) or, leniently, as text.
          return sign(/^0x([0-9a-fA-F]{2})*$/.test(message) ? message : hexOf(message), address);
        }
        case 'eth_signTypedData_v4': {
          // EIP-712: the address first, then the typed data as JSON text (MetaMask's order).
          const [address, json] = (params ?? []) as [string, string];
          if (!connected) throw rpcError(4100, 'The site is not connected: call eth_requestAccounts first');
          if (!isShared(address)) throw rpcError(4100, `This wallet shares ${shared.join(', ')} with the site, not ${address}`);
          if (config.rejectSignatures) throw rpcError(4001, 'User rejected the request.');
          if (typeof json !== 'string') throw rpcError(-32602, 'eth_signTypedData_v4 takes the typed data as JSON text');
          return signTypedData(json, address);
        }
        case 'wallet_switchEthereumChain': {
          const [{ chainId: wanted }] = (params ?? [{}]) as [{ chainId: string }];
          chainId = Number.parseInt(wanted, 16);
          emit('chainChanged', wanted);
          return null;
        }
        default:
          throw rpcError(4200, `The test wallet does not support ${method}`);
      }
    },
    on(event: string, listener: Listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
      return provider;
    },
    removeListener(event: string, listener: Listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };

  if (config.legacy) {
    (window as unknown as { ethereum: unknown }).ethereum = provider;
    return;
  }
  const detail = Object.freeze({ info: Object.freeze({ ...config.info }), provider });
  const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
}
