import type { Page } from 'playwright-core';

/**
 * Times taken inside the page, so that neither Playwright's round trips nor its polling interval
 * count: every time is the page's performance.now(), which is 0 when the navigation started. A
 * MutationObserver sees each milestone's condition the moment the DOM first meets it; the
 * milestone's time is taken after the next frame was rendered (a task posted from the frame's
 * requestAnimationFrame callback runs once its style, layout and paint are done), so "shown" means
 * painted, not only in the DOM.
 */

export type Milestone =
  /** The bare baseline page's text. */
  | 'hello'
  /** A "Sign in with …" button that is enabled: the console found a wallet and can be used. */
  | 'signInReady'
  /** The first view after signing in. */
  | 'whoAmI'
  /** A table with exactly the expected number of rows (`expectRows`). */
  | 'rows';

/** What the page keeps in `window.__benchMilestones`. */
interface Recorder {
  /** When each milestone's condition was first seen in the DOM. */
  dom: Partial<Record<Milestone, number>>;
  /** When the frame showing it had been rendered. */
  painted: Partial<Record<Milestone, number>>;
  /** The last click and change event, as the page received them (capture phase, before its own handlers). */
  inputs: Partial<Record<'click' | 'change', number>>;
  expectedRows: number;
}

/** Runs in the page before its own scripts: self-contained (Playwright sends its source). */
function installRecorder(): void {
  const recorder: Recorder = { dom: {}, painted: {}, inputs: {}, expectedRows: -1 };
  (window as unknown as { __benchMilestones: Recorder }).__benchMilestones = recorder;
  const conditions: Record<Milestone, () => boolean> = {
    hello: () => document.getElementById('hello') !== null,
    signInReady: () =>
      Array.from(document.querySelectorAll('button')).some(
        (button) => !button.disabled && (button.textContent ?? '').startsWith('Sign in with '),
      ),
    whoAmI: () => Array.from(document.querySelectorAll('h1')).some((heading) => heading.textContent === 'Who am I'),
    rows: () => document.querySelectorAll('tbody tr').length === recorder.expectedRows,
  };
  const afterNextFrame = (done: () => void) =>
    requestAnimationFrame(() => {
      const channel = new MessageChannel();
      channel.port1.onmessage = done;
      channel.port2.postMessage(null);
    });
  const check = () => {
    for (const name of Object.keys(conditions) as Milestone[]) {
      if (recorder.dom[name] !== undefined || !conditions[name]()) continue;
      recorder.dom[name] = performance.now();
      afterNextFrame(() => {
        recorder.painted[name] = performance.now();
      });
    }
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  for (const type of ['click', 'change'] as const) {
    window.addEventListener(
      type,
      () => {
        recorder.inputs[type] = performance.now();
      },
      { capture: true },
    );
  }
}

/** Records the milestones of every document the page loads from now on. */
export async function recordMilestones(page: Page): Promise<void> {
  await page.addInitScript(installRecorder);
}

/** Forgets the `rows` milestone and waits, from now on, for a table of exactly `count` rows. */
export async function expectRows(page: Page, count: number): Promise<void> {
  await page.evaluate((rows) => {
    const recorder = (window as unknown as { __benchMilestones: Recorder }).__benchMilestones;
    recorder.expectedRows = rows;
    delete recorder.dom.rows;
    delete recorder.painted.rows;
  }, count);
}

/** Waits until the milestone was painted; returns its time (ms since the navigation started) and when it was in the DOM. */
export async function milestone(page: Page, name: Milestone): Promise<{ painted: number; dom: number }> {
  try {
    const handle = await page.waitForFunction(
      (wanted) => {
        const recorder = (window as unknown as { __benchMilestones: Recorder }).__benchMilestones;
        const painted = recorder.painted[wanted as Milestone];
        return painted !== undefined && { painted, dom: recorder.dom[wanted as Milestone] };
      },
      name,
      { timeout: 60_000 },
    );
    return (await handle.jsonValue()) as { painted: number; dom: number };
  } catch (error) {
    throw new Error(`the page at ${page.url()} never reached "${name}": ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** When the page last received a click or change event (ms since the navigation started). */
export function lastInput(page: Page, type: 'click' | 'change'): Promise<number> {
  return page.evaluate((wanted) => {
    const at = (window as unknown as { __benchMilestones: Recorder }).__benchMilestones.inputs[wanted];
    if (at === undefined) throw new Error(`the page received no ${wanted} event`);
    return at;
  }, type);
}

/** Sets the page's location.hash (a navigation inside the page); returns when, in the page's time. */
export function navigateHash(page: Page, hash: string): Promise<number> {
  return page.evaluate((target) => {
    const started = performance.now();
    window.location.hash = target;
    return started;
  }, hash);
}
