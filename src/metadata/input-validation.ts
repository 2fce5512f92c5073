import { AppError } from '../errors/app-error.ts';
import { ADMIN_STATUSES, type AdminStatus } from '../model/admins.ts';
import { ALL_PERMISSIONS, type Permission } from '../model/permissions.ts';
import { hiddenCharacterRule } from '../names/hidden-characters.ts';
import { storedForm } from '../names/name-form.ts';

const WALLET_SHAPE = /^0x[0-9a-fA-F]{40}$/;
const MAX_NAME_LENGTH = 200;
const MAX_LABEL_LENGTH = 100;

/** Any letter case in, lowercase out: the stored form is what makes uniqueness case-insensitive. */
export function normalizeWallet(wallet: string): string {
  if (typeof wallet !== 'string' || !WALLET_SHAPE.test(wallet)) {
    throw new AppError('VALIDATION_FAILED', `Wallet address must be 0x followed by 40 hexadecimal digits, got ${JSON.stringify(wallet)}`);
  }
  return wallet.toLowerCase();
}

/**
 * A tenant's, channel's or admin's name: surrounding blanks trimmed, in NFC (name-form.ts: the
 * macOS spelling of 'é' is the same name), never empty, and without the characters no name may
 * hold (hidden-characters.ts: a name with ESC, BEL or CR/LF would rewrite the terminal of an
 * operator listing it, a bidi control reorder it), as file and folder names refuse them.
 */
export function requireName(value: string, what: string): string {
  const name = storedForm(requireText(value, what, MAX_NAME_LENGTH));
  const hidden = hiddenCharacterRule(name);
  if (hidden !== undefined) throw new AppError('VALIDATION_FAILED', `${what} ${hidden}`);
  if (name.length > MAX_NAME_LENGTH) throw new AppError('VALIDATION_FAILED', `${what} must be at most ${MAX_NAME_LENGTH} characters`);
  return name;
}

/** A name a caller looks a record up by, in the form names are stored in; not checked: a name nothing is stored under finds nothing. */
export function lookupName(value: string): string {
  return storedForm(value.trim());
}

/** One of the permissions the service checks, exactly as written there. */
export function requirePermission(value: string): Permission {
  if (!isPermission(value)) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Permission must be one of ${ALL_PERMISSIONS.join(', ')} (got ${JSON.stringify(String(value).slice(0, 60))})`,
    );
  }
  return value;
}

export function isPermission(value: unknown): value is Permission {
  return (ALL_PERMISSIONS as readonly unknown[]).includes(value);
}

/**
 * Features are labels of the operator's own: the service gates nothing on them and only reports
 * them (a principal's effectiveFeatures) to the applications that do. So there is no known set to
 * check against, only a shape that an application can compare as it is: lowercase words of
 * letters and digits joined by one '.', '_', ':' or '-' (beta, reports, editor:v2), never blank,
 * spaced, control characters or a second spelling in capitals.
 */
const FEATURE_SHAPE = /^[a-z0-9]+(?:[._:-][a-z0-9]+)*$/;

export function requireFeature(value: string): string {
  if (typeof value !== 'string' || !FEATURE_SHAPE.test(value) || value.length > MAX_LABEL_LENGTH) {
    throw new AppError(
      'VALIDATION_FAILED',
      `Feature must be lowercase letters and digits, words joined by one of . _ : - (such as reports or editor:v2), at most ${MAX_LABEL_LENGTH} characters (got ${JSON.stringify(String(value).slice(0, 60))})`,
    );
  }
  return value;
}

/** Each once, in any order given. */
export function requireEach<T>(values: readonly string[] | undefined, check: (value: string) => T): T[] {
  return [...new Set((values ?? []).map(check))];
}

export function requireStatus(status: string): AdminStatus {
  if (!(ADMIN_STATUSES as readonly string[]).includes(status)) {
    throw new AppError('VALIDATION_FAILED', `Admin status must be ACTIVE or SUSPENDED, got ${JSON.stringify(status)}`);
  }
  return status as AdminStatus;
}

function requireText(value: string, what: string, maxLength: number): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (trimmed === '') throw new AppError('VALIDATION_FAILED', `${what} must not be empty`);
  if (trimmed.length > maxLength) throw new AppError('VALIDATION_FAILED', `${what} must be at most ${maxLength} characters`);
  return trimmed;
}

/**
 * PostgreSQL text cannot hold U+0000 and fails the whole query on one; no stored key holds it.
 * Lookups by a caller's text ask this first and answer "not found" instead.
 */
export function canBeStoredKey(value: string): boolean {
  return typeof value === 'string' && !value.includes('\u0000');
}
