import { backupInstant, formatTime, formatUtc } from './format.ts';

/** A time in the admin's zone, the zone named; the same instant in UTC on hover, and for machines in `datetime`. */
export function Time({ value }: { value: string | Date }) {
  return (
    <time class="time" dateTime={formatUtc(value)} title={`${formatUtc(value)} (UTC)`}>
      {formatTime(value)}
    </time>
  );
}

/** A backup by the time it names; its name (yyyyMMdd_HHmmss, UTC) on hover. */
export function BackupTime({ stamp }: { stamp: string }) {
  const instant = backupInstant(stamp);
  if (!instant) return <code>{stamp}</code>;
  return (
    <time class="time" dateTime={formatUtc(instant)} title={`Backup ${stamp} (UTC)`}>
      {formatTime(instant)}
    </time>
  );
}
