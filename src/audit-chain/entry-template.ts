import type { AuditEvent } from '../model/audit.ts';
import { canonicalJson } from './canonical-json.ts';
import { unhashedEntry } from './chain-entry.ts';

/**
 * The canonical JSON an entry's hash covers (chain-entry.ts), less its `prevHash` and `seq`: the
 * text around them, so that whoever holds the chain's head can put the two in and hash it without
 * first answering them to the writer. The database does so on PostgreSQL, where an append is then
 * one statement instead of two round trips under the tenant's head (audit-chain-records.ts).
 */
export interface EntryTemplate {
  /** The text before the first of the two, between them, and after the second. */
  parts: [string, string, string];
  /** Which comes first in the text: members are sorted by name, so `prevHash` (p < s); kept general. */
  first: 'prevHash' | 'seq';
}

/** Stand-ins no entry's own members would hold: each must occur exactly once, or there is no template. */
const SEQ_MARK = 2 ** 52 + 1;
const PREV_MARK = 'prevHash-mark-cannot-be-a-hash-7d1f0c2e';

/** The template of `event`'s entry; undefined when a member of the event spells a mark, so that the caller hashes the entry itself. */
export function entryTemplate(event: AuditEvent): EntryTemplate | undefined {
  const text = canonicalJson(unhashedEntry(event, SEQ_MARK, PREV_MARK));
  const seqText = JSON.stringify(SEQ_MARK);
  const prevText = JSON.stringify(PREV_MARK).slice(1, -1);
  const once = (mark: string) => text.indexOf(mark) !== -1 && text.indexOf(mark) === text.lastIndexOf(mark);
  if (!once(seqText) || !once(prevText)) return undefined;
  const seqAt = text.indexOf(seqText);
  const prevAt = text.indexOf(prevText);
  const [first, firstAt, firstLength, secondAt, secondLength] =
    prevAt < seqAt
      ? (['prevHash', prevAt, prevText.length, seqAt, seqText.length] as const)
      : (['seq', seqAt, seqText.length, prevAt, prevText.length] as const);
  return {
    parts: [text.slice(0, firstAt), text.slice(firstAt + firstLength, secondAt), text.slice(secondAt + secondLength)],
    first,
  };
}
