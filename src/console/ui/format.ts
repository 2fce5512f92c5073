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

// timeStyle 'long' names the zone ("10:23:26 AM GMT+1"): an admin comparing times with a colleague,
// a log or a backup's UTC name must know which zone a time is in.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'long' });
const clock = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });

const dateOf = (time: string | Date) => (typeof time === 'string' ? new Date(time) : time);

/** A time in the admin's locale and zone, the zone named: "Nov 26, 2026, 10:23:26 AM GMT+1". */
export function formatTime(time: string | Date): string {
  const date = dateOf(time);
  return Number.isNaN(date.getTime()) ? String(time) : dateTime.format(date);
}

/** The same time in UTC, as RFC 3339 ("2026-11-26T09:23:26Z"): what a hover shows, and what logs and the API say. */
export function formatUtc(time: string | Date): string {
  const date = dateOf(time);
  return Number.isNaN(date.getTime()) ? String(time) : date.toISOString().replace(/\.000Z$/, 'Z');
}

/** A time of today, to the minute, the zone named: "6:23 PM GMT+1". */
export function formatClock(date: Date): string {
  return clock.format(date);
}

/** A backup's name, yyyyMMdd_HHmmss in UTC, as the instant it names; undefined for anything else. */
export function backupInstant(stamp: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})$/.exec(stamp);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match;
  return new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}Z`);
}

/** A backup's yyyyMMdd_HHmmss (UTC) as a readable time in the admin's zone. */
export function formatBackupTimestamp(stamp: string): string {
  const instant = backupInstant(stamp);
  return instant ? formatTime(instant) : stamp;
}

/** "Backup of …" in the middle of a sentence: the first letter only, so that "Nov" and "AM" keep their case. */
export function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The start of a hash: enough to tell versions apart at a glance. */
export function shortHash(hex: string): string {
  return hex.slice(0, 12);
}

/** 0xAbCd…1234 */
export function shortAddress(address: string): string {
  return address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;
}
