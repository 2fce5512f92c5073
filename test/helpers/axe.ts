import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type AxeCore from 'axe-core';
import type { Page } from 'playwright-core';

/**
 * axe-core, Deque's accessibility checker, run in the page as it is shown: the real engine in the
 * real browser, so that contrast is measured on the colours Chromium paints.
 */

const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let axeSource: Promise<string> | undefined;

/** What the console is held to: a violation of these impacts fails; minor and moderate ones are reported by axe only. */
const BLOCKING: readonly AxeCore.ImpactValue[] = ['serious', 'critical'];

/**
 * The serious and critical violations axe finds in the page now, each as one line naming `where`,
 * the rule, the element and what is wrong with it. Besides axe's default rules, the check of WCAG
 * 2.5.3 (label in name), which axe ships as experimental: a control's accessible name must hold
 * its visible words. `within`: a selector of the part to check (an open dialog), else the whole page.
 */
export async function axeViolations(page: Page, where: string, within?: string): Promise<string[]> {
  axeSource ??= readFile(AXE_SCRIPT, 'utf8');
  // page.evaluate runs outside the page's Content-Security-Policy, which refuses any script it did not serve.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeSource);
  const violations = await page.evaluate(async (selector) => {
    const { axe } = window as unknown as { axe: typeof AxeCore };
    const results = await axe.run(selector ?? document, {
      resultTypes: ['violations'],
      rules: { 'label-content-name-mismatch': { enabled: true } },
    });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map((node) => ({ target: node.target.join(' '), html: node.html, summary: node.failureSummary ?? '' })),
    }));
  }, within);
  // One line per rule and state: the elements it names (a table's rows repeat one fault), and what axe says of the first.
  return violations
    .filter((violation) => BLOCKING.includes(violation.impact ?? null))
    .map((violation) => {
      const [first] = violation.nodes;
      const more = violation.nodes.length > 1 ? ` and ${violation.nodes.length - 1} more like it` : '';
      return `${where}: ${violation.id} (${violation.impact}: ${violation.help}) at ${first?.target} ${first?.html.slice(0, 120)}${more}: ${first?.summary.replace(/\s+/g, ' ')}`;
    });
}
