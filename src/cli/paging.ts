import type { Page, PageRequest } from '../model/paging.ts';
import { integerOption, type OptionSpec, type OptionValues, optionalString } from './command.ts';
import { type TerminalText, terminalLines, terminalText } from './terminal-text.ts';

/**
 * The options of a paged list, named as the API's query names them: --limit, and --cursor with
 * the `next` of the page before (printed by --json, and after a full page of text).
 */
export const pageOptions = {
  limit: { type: 'string', description: 'How many (1–1000, default 50)' },
  cursor: {
    type: 'string',
    placeholder: 'NEXT',
    description: 'The next page: the "next" the previous page printed (pass the same other options)',
  },
} as const satisfies Record<string, OptionSpec>;

export function pageRequestOf(values: OptionValues): PageRequest {
  const limit = integerOption(values, 'limit', { min: 1, max: 1000, fallback: 50 });
  const cursor = optionalString(values, 'cursor');
  return cursor === undefined ? { limit } : { limit, cursor };
}

/** A page as text: its lines (or `empty` when it has none), then how to ask for the next page when there is one. */
export function pageText(lines: TerminalText[], page: Pick<Page<unknown>, 'next'>, empty: TerminalText): TerminalText {
  if (lines.length === 0) return empty;
  return terminalLines(page.next === null ? lines : [...lines, terminalText`More: add --cursor ${page.next}`]);
}
