import { AppError } from '../errors/app-error.ts';

/**
 * RFC 3339 section 5.6 date-time, checked by its grammar and then by its calendar and clock
 * ranges (section 5.7), because the auth time window must never rest on a date like Feb 30.
 */

// "T" and "Z" may be lower case: ABNF string literals are case-insensitive (RFC 3339 5.6, NOTE).
// \d without the u flag is ASCII 0-9 only.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

export type Rfc3339Check = { ok: true; epochMs: number } | { ok: false; reason: string };

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Date.UTC reads years 0-99 as 1900-1999; RFC 3339 years are literal. */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

export function checkRfc3339(text: string): Rfc3339Check {
  const match = typeof text === 'string' ? DATE_TIME.exec(text) : null;
  if (match === null) {
    return { ok: false, reason: 'not an RFC 3339 date-time (YYYY-MM-DDThh:mm:ss[.fraction] then Z or ±hh:mm)' };
  }
  // Each field read where it stands, without an intermediate array: every sign-in parses two or three times.
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6]);
  const fraction = match[7] ?? '';
  const offsetSign = match[9];

  if (month < 1 || month > 12) return { ok: false, reason: `month ${match[2]} does not exist` };
  if (day < 1 || day > daysInMonth(year, month)) return { ok: false, reason: `day ${match[3]} does not exist in ${match[1]}-${match[2]}` };
  if (hour > 23) return { ok: false, reason: `hour ${match[4]} is out of range (00-23)` };
  if (minute > 59) return { ok: false, reason: `minute ${match[5]} is out of range (00-59)` };
  if (second > 60) return { ok: false, reason: `second ${match[6]} is out of range (00-60)` };

  let offsetMinutes = 0;
  if (offsetSign !== undefined) {
    const offsetHour = Number(match[10]);
    const offsetMinute = Number(match[11]);
    if (offsetHour > 23 || offsetMinute > 59) return { ok: false, reason: `offset ${offsetSign}${match[10]}:${match[11]} is out of range` };
    offsetMinutes = (offsetSign === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }

  // Milliseconds are all the precision the time window uses; further digits are valid but dropped.
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const wallClock = utcMs(year, month, day, hour, minute, Math.min(second, 59)) - offsetMinutes * 60_000;
  if (second === 60) {
    // RFC 3339 5.7: a leap second only ends a UTC month, at 23:59:60 UTC (in any offset's local time).
    const utc = new Date(wallClock);
    const lastDay = daysInMonth(utc.getUTCFullYear(), utc.getUTCMonth() + 1);
    if (utc.getUTCHours() !== 23 || utc.getUTCMinutes() !== 59 || utc.getUTCDate() !== lastDay) {
      return { ok: false, reason: 'second 60 (a leap second) can only be 23:59:60 UTC on the last day of a month' };
    }
    // POSIX time has no leap seconds; the instant after 23:59:59 is the next midnight.
    return { ok: true, epochMs: wallClock + 1000 + millis };
  }
  return { ok: true, epochMs: wallClock + millis };
}

/** Epoch milliseconds of an RFC 3339 date-time, or undefined when it is not one (syntax or calendar). */
export function parseRfc3339(text: string): number | undefined {
  const result = checkRfc3339(text);
  return result.ok ? result.epochMs : undefined;
}

/**
 * The one spelling of an instant in answers, messages and logs: RFC 3339 in UTC with milliseconds
 * (2026-11-22T08:50:01.123Z), which sorts as text in time order.
 */
export function formatRfc3339(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

/**
 * Why `value` is no instant, as every refusal of one words it (`name`: the parameter or option):
 * what was wrong and an example of what is right, as a backup timestamp's refusal does.
 */
export function malformedInstant(name: string, value: string, reason = reasonOf(value)): string {
  const why = reason === undefined ? '' : `: ${reason}`;
  return `${name} must be an RFC 3339 date-time such as 2026-11-23T15:04:05Z (got "${value.slice(0, 40)}"${why})`;
}

const reasonOf = (value: string): string | undefined => {
  const parsed = checkRfc3339(value);
  return parsed.ok ? undefined : parsed.reason;
};

/** The instant a request names (`name`: its parameter), in epoch ms; VALIDATION_FAILED, worded as above, when it is none. */
export function parseInstant(value: string, name: string): number {
  const parsed = checkRfc3339(value);
  if (!parsed.ok) throw new AppError('VALIDATION_FAILED', malformedInstant(name, value, parsed.reason));
  return parsed.epochMs;
}
