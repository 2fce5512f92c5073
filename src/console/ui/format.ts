const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** 1,234,567 → "1.2 MB" (decimal units, as file managers show them). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** An RFC 3339 time in the admin's locale and zone. */
export function formatTime(iso: string | Date): string {
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  return Number.isNaN(date.getTime()) ? String(iso) : dateTime.format(date);
}

export function formatClock(date: Date): string {
  return timeOnly.format(date);
}

/** A backup's yyyyMMdd_HHmmss (UTC) as a readable time. */
export function formatBackupTimestamp(stamp: string): string {
  const match = /^(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})$/.exec(stamp);
  if (!match) return stamp;
  const [, y, mo, d, h, mi, s] = match;
  return formatTime(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
}

/** The start of a hash: enough to tell versions apart at a glance. */
export function shortHash(hex: string): string {
  return hex.slice(0, 12);
}

/** 0xAbCd…1234 */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}
