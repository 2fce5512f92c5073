/** Connection-level failures (server down, restarting, unreachable) as opposed to bad queries. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN',
  '57P01', '57P02', '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '08000', '08001', '08003', '08004', '08006', // connection exceptions
  'SQLITE_BUSY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN',
]);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

/** The database's disk is full (SQLite) or out of space (PostgreSQL's disk_full): nothing was written. */
export function isDatabaseFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_FULL' || code === '53100';
}
