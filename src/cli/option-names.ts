/*
 * The layers below the CLI (the file services, the store, the signing code) name what they refuse
 * as their callers know it: an API parameter (backupTimestamp, toAt), a record's field ("Display
 * name") or a header (X-SIG). The CLI passes its options on to them, so a refusal that reaches the
 * operator is restated here in the options typed: "--backup", not "backupTimestamp". The CLI checks
 * what it can itself first (option-checks.ts); this covers whatever it does not, and a refusal added
 * below later, as long as its name is in the table.
 */

/** A name the layers below use, and the CLI option whose value they got under it. */
const OPTION_OF: readonly (readonly [string, string])[] = [
  // The file services' parameters, as the HTTP API names them.
  ['backupTimestamp', 'backup'],
  ['versionId', 'version'],
  ['fromAt', 'from-at'],
  ['toAt', 'to-at'],
  ['from', 'from'],
  ['to', 'to'],
  ['at', 'at'],
  ['folder name', 'folder'],
  ['file name', 'file'],
  ['cursor', 'cursor'],
  // The store's fields.
  ['Display name', 'name'],
  ['Tenant name', 'name'],
  ['Channel name', 'name'],
  ['Wallet address', 'wallet'],
  ['Admin status', 'status'],
  ['Permission', 'permission'],
  ['Feature', 'feature'],
  // Signing.
  ['The private key', 'private-key'],
  ['The address', 'address'],
  ['X-SIG', 'signature'],
];

/**
 * Where a name stands for a value rather than being a word of the sentence: followed by its value
 * in parentheses, by what is wrong with it, or by the next name of a list. "from" and "at" are
 * English words too: "the state at 2026-…" keeps its "at".
 */
const NAME_FOLLOWER = String.raw`(?=\s\(|\s(?:must|is|has|holds|or|and)\b|[,;:]|$)`;

/** Each name as a whole word at a name's place. The names are letters, spaces and '-': nothing to escape. */
const PATTERNS = OPTION_OF.map(([name, option]) => ({
  pattern: new RegExp(String.raw`(?<![\w-])${name}${NAME_FOLLOWER}`, 'g'),
  option,
}));

/** `message` with every name the table has for one of `options` replaced by that option (--name). */
export function inOptionNames(message: string, options: readonly string[]): string {
  let restated = message;
  for (const { pattern, option } of PATTERNS) {
    if (options.includes(option)) restated = restated.replace(pattern, `--${option}`);
  }
  return restated;
}
