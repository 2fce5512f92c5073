import { type LockChange, lockChangeOf } from '../../files/backup-lock-rules.ts';
import { type OptionValues, optionalString, UsageError } from '../command.ts';
import { atMostOneOf } from '../option-checks.ts';

/** The change `backup lock`'s options ask for, in either mode; a conflict between them is wrong use (exit 2). */
export function lockChangeOptions(values: OptionValues): LockChange {
  atMostOneOf(values, ['legal-hold', 'release-hold']);
  const unlock = values.unlock === true;
  if (unlock && (values.mode !== undefined || values.until !== undefined)) {
    throw new UsageError('Give --unlock or --mode with --until, not both');
  }
  const hold = values['legal-hold'] === true ? true : values['release-hold'] === true ? false : undefined;
  if (unlock) return hold === undefined ? { retention: null } : { retention: null, legalHold: hold };
  return lockChangeOf(
    { mode: optionalString(values, 'mode'), until: optionalString(values, 'until'), legalHold: hold },
    { mode: '--mode', until: '--until', legalHold: '--legal-hold (or --release-hold, or --unlock)' },
  );
}
