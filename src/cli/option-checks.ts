import { parseBackupTimestamp } from '../time/backup-timestamp.ts';
import { checkRfc3339, malformedInstant } from '../time/rfc3339.ts';
import { type OptionValues, optionalString, UsageError } from './command.ts';

/*
 * The CLI checks the options it passes on to the file services before they do, so that a refusal
 * names the option the operator typed (--backup), not the API parameter behind it (backupTimestamp).
 */

/** A backup's timestamp option (--backup, --from, --to), checked for shape and calendar. */
export function backupOption(values: OptionValues, name: string): string | undefined {
  const value = optionalString(values, name);
  return value === undefined ? undefined : parseBackupTimestamp(value, `--${name}`);
}

/** An instant option (--at, --from-at, --to-at): an RFC 3339 date-time, not in the future. */
export function instantOption(values: OptionValues, name: string): string | undefined {
  const value = optionalString(values, name);
  if (value === undefined) return undefined;
  const parsed = checkRfc3339(value);
  if (!parsed.ok) throw new UsageError(malformedInstant(`--${name}`, value, parsed.reason));
  if (parsed.epochMs > Date.now()) throw new UsageError(`--${name} (${value.slice(0, 40)}) is in the future; the newest state is now`);
  return value;
}

/**
 * A plan's tag (--if-match): 64 hex digits as --dry-run prints them, or quoted as its JSON and the
 * API's ETag carry them; answered as the entity tag ("…") the service compares.
 */
export function planTagOption(values: OptionValues, name: string): string | undefined {
  const value = optionalString(values, name);
  if (value === undefined) return undefined;
  const tag = /^(?:"([0-9a-f]{64})"|([0-9a-f]{64}))$/.exec(value.trim());
  if (!tag) throw new UsageError(`--${name} must be the plan tag --dry-run prints (64 hex digits), not "${value.slice(0, 80)}"`);
  return `"${tag[1] ?? tag[2]}"`;
}

/** At most one (or, when `required`, exactly one) of these options. */
export function atMostOneOf(values: OptionValues, names: string[], required = false): void {
  const given = names.filter((name) => values[name] !== undefined);
  const list = names
    .map((name) => `--${name}`)
    .join(names.length > 2 ? ', ' : ' and ')
    .replace(/, (--[^,]+)$/, ' and $1');
  if (given.length > 1)
    throw new UsageError(`Give ${required ? 'one' : 'at most one'} of ${list}, not ${given.map((n) => `--${n}`).join(' and ')}`);
  if (required && given.length === 0) throw new UsageError(`Give one of ${list}`);
}
