import { checkRfc3339 } from '../auth/siwe/rfc3339.ts';
import { parseBackupTimestamp } from '../files/backup-timestamp.ts';
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
  if (!parsed.ok) {
    throw new UsageError(
      `--${name} must be an RFC 3339 date-time such as 2026-11-23T15:04:05Z (got "${value.slice(0, 40)}": ${parsed.reason})`,
    );
  }
  if (parsed.epochMs > Date.now()) throw new UsageError(`--${name} (${value.slice(0, 40)}) is in the future; the newest state is now`);
  return value;
}

/** The options of `backup diff` that name the two states it compares. */
export interface RangeOptions {
  from?: string | undefined;
  fromAt?: string | undefined;
  to?: string | undefined;
  toAt?: string | undefined;
}

/** The start of a backup timestamp's second (yyyyMMdd_HHmmss, UTC, already checked), in epoch ms. */
function backupSecond(timestamp: string): number {
  const [, y, mo, d, h, mi, s] = /^(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})$/.exec(timestamp)!.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

/**
 * The newer state must not be older than the older one. A backup was taken at some instant within
 * the second its timestamp names, so against an instant it is known to be older or newer only
 * outside that second; inside it, the file services decide (and the refusal is restated in these
 * options' names, option-names.ts).
 */
export function olderFirst(range: RangeOptions): void {
  const refuse = (newer: string, newerValue: string, older: string, olderValue: string): never => {
    throw new UsageError(`--${newer} (${newerValue}) is older than --${older} (${olderValue}); swap them`);
  };
  const { from, fromAt, to, toAt } = range;
  // Both kinds were checked when read (backupOption, instantOption).
  const instant = (value: string) => {
    const parsed = checkRfc3339(value);
    return parsed.ok ? parsed.epochMs : Number.NaN;
  };
  if (from !== undefined && to !== undefined && to < from) refuse('to', to, 'from', from);
  if (fromAt !== undefined && toAt !== undefined && instant(toAt) < instant(fromAt)) refuse('to-at', toAt, 'from-at', fromAt);
  if (from !== undefined && toAt !== undefined && instant(toAt) < backupSecond(from)) refuse('to-at', toAt, 'from', from);
  if (fromAt !== undefined && to !== undefined && backupSecond(to) + 1000 <= instant(fromAt)) refuse('to', to, 'from-at', fromAt);
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
