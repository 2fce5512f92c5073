import { AppError } from '../errors/app-error.ts';

const SHAPE = /^(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})$/;

/** yyyyMMdd_HHmmss in UTC: the name of a backup, one per channel per second. */
export function formatBackupTimestamp(epochMs: number): string {
  const iso = new Date(epochMs).toISOString(); // 2026-11-22T08:50:01.123Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}_${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

/** The UTC second a well-formed timestamp (parseBackupTimestamp) names, in epoch ms. */
export function backupTimestampMs(timestamp: string): number {
  const [, y, mo, d, h, mi, s] = SHAPE.exec(timestamp)!.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
}

/** Checks shape and calendar (no 20261340_…); returns the timestamp unchanged. `name`: the parameter, for the message. */
export function parseBackupTimestamp(value: string, name = 'backupTimestamp'): string {
  const match = SHAPE.exec(value);
  if (match) {
    const [, y, mo, d, h, mi, s] = match.map(Number) as number[];
    const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
    if (
      date.getUTCFullYear() === y &&
      date.getUTCMonth() === mo! - 1 &&
      date.getUTCDate() === d &&
      date.getUTCHours() === h &&
      date.getUTCMinutes() === mi &&
      date.getUTCSeconds() === s
    ) {
      return value;
    }
  }
  throw new AppError(
    'INVALID_TIMESTAMP',
    `${name} must be a real UTC date and time written yyyyMMdd_HHmmss, e.g. 20261122_085001 (got "${value.slice(0, 40)}")`,
  );
}
