import { AppError } from '../errors/app-error.ts';
import { ADMIN_STATUSES, type AdminStatus } from './types.ts';

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

/** A display or channel name: surrounding blanks trimmed, never empty. */
export function requireName(value: string, what: string): string {
  return requireText(value, what, MAX_NAME_LENGTH);
}

/** A permission or feature label. */
export function requireLabel(value: string, what: string): string {
  return requireText(value, what, MAX_LABEL_LENGTH);
}

export function requireLabels(values: readonly string[] | undefined, what: string): string[] {
  return [...new Set((values ?? []).map((value) => requireLabel(value, what)))];
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
