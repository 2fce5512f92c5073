import { gzipSync } from 'node:zlib';
import type { Browser, Page, Response } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { createClient, fromViemAccount } from '../../src/client/index.ts';
import { allowSerializedFunctions, injectWallet, launchChromium } from '../../test/helpers/browser.ts';
import type { Deployment } from '../lib/deployment.ts';
import { expectRows, lastInput, milestone, navigateHash, recordMilestones } from '../lib/page-milestones.ts';
import { type BenchContext, median, type Row, round, type Scenario } from '../lib/scenario.ts';
import { withBaseline, withService } from '../lib/served.ts';
import type { RunningServer } from '../lib/servers.ts';

const FOLDER = 'inbox';
const WALLET = { name: 'Bench Wallet', rdns: 'org.example.benchwallet' };
/** The files view's first page size, and the largest its "Per page" select offers. */
const DEFAULT_PAGE = 100;
const LARGEST_PAGE = 1000;
/**
 * The budget test/console/console-bundle.unit.test.ts holds the page to, in bytes gzipped: what a cold
 * load fetches (what a view fetches later, such as the log verifier, is not part of it).
 */
const BUDGET = { js: 80_000, css: 30_000 };

/** One console asset as the browser fetched it. */
interface Asset {
  url: string;
  kind: 'js' | 'css';
  /** The body's bytes once decoded. */
  bytes: number;
  /** The body as it crossed the wire (the same unless the service compressed it). */
  transferred: number;
  contentEncoding: string | undefined;
  /** gzip level 9 of the bytes: what a compressing proxy in front of the service would send. */
  gzip: number;
}

interface RunTimes {
  /** The bare Fastify page, navigation to painted. */
  helloMs: number;
  /** Navigation to /console/ until an enabled "Sign in with …" button was painted. */
  coldLoadMs: number;
  /** The click on it until the "Who am I" view was painted. */
  signInMs: number;
  /** Navigation to the folder until its first page (DEFAULT_PAGE rows) was painted. */
  folderMs: number;
  /** "Per page" set to LARGEST_PAGE until all of the folder's rows were painted. */
  largestPageMs: number;
  /** The same milestones when the DOM first held them, before the frame was rendered. */
  domMs: Record<string, number>;
  assets: Asset[];
}

/** The console in Chromium against the service, with the bare Fastify page as the browser's floor. */
export async function consoleLoad(context: BenchContext, fileCount: number): Promise<Row[]> {
  return withBaseline(context, 'bare-fastify', (baseline) =>
    withService(context, 'sqlite', {}, async (server, deployment) => {
      context.log(`console: uploading ${fileCount} files to one folder`);
      await seedFolder(server, deployment, fileCount);
      const browser = await launchChromium();
      try {
        const once = () => measureOnce(browser, server, baseline, deployment, fileCount);
        // The first pages the browser ever loads also pay for its own start-up (fonts, GPU process).
        if (!context.smoke) await once();
        const runs: RunTimes[] = [];
        for (let i = 0; i < context.runs; i++) runs.push(await once());
        return rows(runs, fileCount);
      } finally {
        await browser.close();
      }
    }),
  );
}

/** `fileCount` small files in FOLDER, uploaded through the API as an admin would. */
async function seedFolder(server: RunningServer, deployment: Deployment, fileCount: number): Promise<void> {
  const client = createClient({ baseUrl: server.baseUrl, signer: fromViemAccount(privateKeyToAccount(deployment.privateKey)) });
  const names = Array.from({ length: fileCount }, (_, i) => `report-${String(i).padStart(4, '0')}.txt`);
  for (let i = 0; i < names.length; i += 16) {
    await Promise.all(names.slice(i, i + 16).map((name) => client.upload(deployment.channelId, FOLDER, name, `${name}\n`, 'text/plain')));
  }
}

/** A page in a fresh context (an empty cache: a cold load) with the injected wallet and the milestone recorder. */
async function benchPage(browser: Browser, deployment: Deployment): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await allowSerializedFunctions(page);
  await injectWallet(page, { privateKey: deployment.privateKey, ...WALLET });
  await recordMilestones(page);
  return page;
}

/** The baseline page, set up as the console's is, so that what differs is the console itself. */
async function loadHello(browser: Browser, baseline: RunningServer, deployment: Deployment): Promise<{ painted: number; dom: number }> {
  const page = await benchPage(browser, deployment);
  try {
    await page.goto(`${baseline.baseUrl}/hello`);
    return await milestone(page, 'hello');
  } finally {
    await page.context().close();
  }
}

async function measureOnce(
  browser: Browser,
  server: RunningServer,
  baseline: RunningServer,
  deployment: Deployment,
  fileCount: number,
): Promise<RunTimes> {
  const helloTimes = await loadHello(browser, baseline, deployment);
  const page = await benchPage(browser, deployment);
  try {
    const fetched: Promise<Asset | undefined>[] = [];
    page.on('response', (response) => fetched.push(describeAsset(response)));
    await page.goto(`${server.baseUrl}/console/`);
    const loaded = await milestone(page, 'signInReady');
    const assets = (await Promise.all(fetched)).filter((asset) => asset !== undefined);

    await page.getByRole('button', { name: `Sign in with ${WALLET.name}` }).click();
    const signedIn = await milestone(page, 'whoAmI');
    const clicked = await lastInput(page, 'click');

    await expectRows(page, Math.min(DEFAULT_PAGE, fileCount));
    const opened = await navigateHash(page, `#/channels/${encodeURIComponent(deployment.channelId)}/folders/${encodeURIComponent(FOLDER)}`);
    const folder = await milestone(page, 'rows');

    await expectRows(page, Math.min(LARGEST_PAGE, fileCount));
    await page.getByLabel('Per page').selectOption(String(LARGEST_PAGE));
    const largest = await milestone(page, 'rows');
    const changed = await lastInput(page, 'change');

    return {
      helloMs: helloTimes.painted,
      coldLoadMs: loaded.painted,
      signInMs: signedIn.painted - clicked,
      folderMs: folder.painted - opened,
      largestPageMs: largest.painted - changed,
      domMs: {
        hello: helloTimes.dom,
        coldLoad: loaded.dom,
        signIn: signedIn.dom - clicked,
        folder: folder.dom - opened,
        largestPage: largest.dom - changed,
      },
      assets,
    };
  } finally {
    await page.context().close();
  }
}

async function describeAsset(response: Response): Promise<Asset | undefined> {
  const url = new URL(response.url());
  const kind = /^\/console\/assets\/[^/]+\.(js|css)$/.exec(url.pathname)?.[1] as 'js' | 'css' | undefined;
  if (kind === undefined) return undefined;
  const body = await response.body();
  const sizes = await response.request().sizes();
  return {
    url: url.pathname,
    kind,
    bytes: body.length,
    transferred: sizes.responseBodySize,
    contentEncoding: (await response.allHeaders())['content-encoding'],
    gzip: gzipSync(body, { level: 9 }).length,
  };
}

const ms = (value: number) => `${Math.round(value)} ms`;
const kb = (bytes: number) => `${round(bytes / 1000, 1)} KB`;

function rows(runs: RunTimes[], fileCount: number): Row[] {
  const pick = (key: 'helloMs' | 'coldLoadMs' | 'signInMs' | 'folderMs' | 'largestPageMs') => median(runs.map((run) => run[key]));
  const details = { runs };
  const hello = pick('helloMs');
  const coldLoad = pick('coldLoadMs');
  const assets = runs.at(-1)!.assets;
  const total = (kind: 'js' | 'css', size: 'bytes' | 'transferred' | 'gzip') =>
    assets.filter((asset) => asset.kind === kind).reduce((sum, asset) => sum + asset[size], 0);
  const largestRows = Math.min(LARGEST_PAGE, fileCount);
  return [
    {
      scenario: 'console cold load to interactive',
      engine: 'sqlite',
      measured: ms(coldLoad),
      baseline: `static hello page, bare Fastify ${ms(hello)}`,
      ratio: round(coldLoad / hello),
      details,
    },
    { scenario: 'console sign-in to first view', engine: 'sqlite', measured: ms(pick('signInMs')), details },
    {
      scenario: `console open folder (${DEFAULT_PAGE} of ${fileCount.toLocaleString('en-US')} files)`,
      engine: 'sqlite',
      measured: ms(pick('folderMs')),
      details,
    },
    {
      scenario: `console folder at ${LARGEST_PAGE.toLocaleString('en-US')} per page (${largestRows.toLocaleString('en-US')} rows)`,
      engine: 'sqlite',
      measured: ms(pick('largestPageMs')),
      details,
    },
    {
      scenario: 'console assets',
      engine: 'sqlite',
      measured: `JS ${kb(total('js', 'transferred'))} (gzip ${kb(total('js', 'gzip'))}), CSS ${kb(total('css', 'transferred'))} (gzip ${kb(total('css', 'gzip'))})`,
      target: `gzip: JS < ${kb(BUDGET.js)}, CSS < ${kb(BUDGET.css)}`,
      met: total('js', 'gzip') < BUDGET.js && total('css', 'gzip') < BUDGET.css,
      details: { assets },
    },
  ];
}

export const consoleScenario: Scenario = {
  name: 'console',
  summary: 'the console in Chromium: cold load, sign-in, a 1,000-file folder at 100 and 1,000 per page; its JS and CSS sizes',
  run: (c) => consoleLoad(c, c.smoke ? 250 : 1000),
};
