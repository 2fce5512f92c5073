import { AppError } from '../../../errors/app-error.ts';
import type { EntityTag, MatchPrecondition, Precondition, TagCondition } from '../../../model/files.ts';

type Headers = Record<string, string | string[] | undefined>;

// RFC 9110 §8.8.3: entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE; etagc = %x21 / %x23-7E / obs-text.
// A tag may hold a comma, so a list is read tag by tag rather than split on commas.
const ENTITY_TAG = /^(W\/)?("[\x21\x23-\x7e\x80-\xff]*")/;
const LIST_SEPARATOR = /^[ \t]*,[ \t]*/;

/** The conditions of a PUT: If-Match and If-None-Match, each optional. */
export function uploadPrecondition(headers: Headers): Precondition {
  const ifMatch = tagConditionOf(headers, 'if-match');
  const ifNoneMatch = tagConditionOf(headers, 'if-none-match');
  return { ...(ifMatch && { ifMatch }), ...(ifNoneMatch && { ifNoneMatch }) };
}

/**
 * The condition of a DELETE or a restore: If-Match only. If-None-Match is refused rather than
 * ignored: a client that sends it expects it to guard the write, and ignoring it would not.
 * `operation` and `tag` name, in that refusal, what was asked and which ETag If-Match takes there.
 */
export function matchPrecondition(headers: Headers, operation: string, tag = "the file's ETag"): MatchPrecondition {
  if (headers['if-none-match'] !== undefined) {
    throw new AppError('VALIDATION_FAILED', `If-None-Match is not supported on ${operation}; use If-Match with ${tag}`);
  }
  const ifMatch = tagConditionOf(headers, 'if-match');
  return ifMatch ? { ifMatch } : {};
}

/** `*` or a list of entity tags (empty elements allowed between commas, RFC 9110 §5.6.1); undefined when absent. */
function tagConditionOf(headers: Headers, name: 'if-match' | 'if-none-match'): TagCondition | undefined {
  const raw = headers[name];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw.join(', ') : raw).trim();
  if (value === '*') return 'any';
  const tags: EntityTag[] = [];
  let rest = value;
  while (rest !== '') {
    const separator = LIST_SEPARATOR.exec(rest);
    if (separator) {
      rest = rest.slice(separator[0].length);
      continue;
    }
    const tag = ENTITY_TAG.exec(rest);
    if (!tag) throw malformed(name, value);
    tags.push({ weak: tag[1] !== undefined, opaque: tag[2]! });
    rest = rest.slice(tag[0].length);
    // After a tag: the end, or a comma.
    if (rest !== '' && !LIST_SEPARATOR.test(rest)) throw malformed(name, value);
  }
  // An empty list is grammatical but meaningless: almost surely a client's bug, refused as such.
  if (tags.length === 0) throw malformed(name, value);
  return tags;
}

function malformed(name: string, value: string): AppError {
  const shown = JSON.stringify(value.slice(0, 100));
  const header = name === 'if-match' ? 'If-Match' : 'If-None-Match';
  return new AppError('VALIDATION_FAILED', `${header} must be * or a list of entity tags such as "<sha256>", not ${shown}`);
}
