import { isAppError } from '../errors/app-error.ts';
import { metadataFull, metadataReadOnly, metadataUnavailable } from '../errors/common-errors.ts';

/**
 * Everything the store knows about its drivers' errors, in one place: which mean an outage or a
 * full disk (turned into AppErrors at the driver boundary, see error-translating-dialect.ts), and
 * which unique constraint a write violated (turned into AppErrors by the write that knows what
 * the constraint means).
 */

/** Connection-level failures (server down, restarting, unreachable) as opposed to bad queries. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
]);

/**
 * SQLite's primary codes of an outage; better-sqlite3 reports extended codes (SQLITE_IOERR_WRITE,
 * SQLITE_CANTOPEN_ISDIR, SQLITE_BUSY_SNAPSHOT…), which begin with their primary code.
 */
const SQLITE_UNAVAILABLE_PREFIXES = ['SQLITE_BUSY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'];

function sqliteCodeIn(code: unknown, primary: string): boolean {
  return typeof code === 'string' && (code === primary || code.startsWith(`${primary}_`));
}

/**
 * Another connection holds a lock this statement needs (SQLITE_BUSY and its extended codes): the
 * statement did nothing, and waiting may help (see sqlite-busy-retry.ts).
 */
export function isSqliteBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && sqliteCodeIn((error as { code?: unknown }).code, 'SQLITE_BUSY');
}

function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (SQLITE_UNAVAILABLE_PREFIXES.some((primary) => sqliteCodeIn(code, primary))) return true;
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    )
  );
}

/** The database's disk is full (SQLite) or out of space (PostgreSQL's disk_full): nothing was written. */
function isDatabaseFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return sqliteCodeIn(code, 'SQLITE_FULL') || code === '53100';
}

/**
 * The database refuses writes: SQLite's file (or its directory, where the journal goes) is read-only
 * to this process, or PostgreSQL is in read-only mode (a hot standby, default_transaction_read_only:
 * read_only_sql_transaction).
 */
function isDatabaseReadOnly(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return sqliteCodeIn(code, 'SQLITE_READONLY') || code === '25006';
}

/**
 * SQLite ends a transaction itself on some errors of a statement in it (a full disk, an I/O error,
 * no memory), so the ROLLBACK that follows finds none. That ROLLBACK has nothing left to undo; the
 * error worth reporting is the statement's.
 */
export function isRollbackWithoutTransaction(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'SQLITE_ERROR' && message === 'cannot rollback - no transaction is active';
}

/**
 * An outage or a database that refuses writes → AppError SERVICE_UNAVAILABLE, a full disk →
 * INSUFFICIENT_STORAGE, the driver error kept as the cause; any other error unchanged.
 */
export function translateDriverError(error: unknown): unknown {
  if (isAppError(error)) return error;
  if (isDatabaseFull(error)) return metadataFull(error);
  if (isDatabaseReadOnly(error)) return metadataReadOnly(error);
  if (isDatabaseUnavailable(error)) return metadataUnavailable(error);
  return error;
}

/**
 * Unique constraints the store turns into AppError codes. Both engines report a violation
 * differently: PostgreSQL names the constraint, SQLite lists the columns in its message.
 */
interface UniqueConstraint {
  name: string;
  sqliteColumns: string;
}

export const WALLET_UNIQUE: UniqueConstraint = { name: 'admins_wallet_unique', sqliteColumns: 'admins.wallet' };
/** Every admin's wallets (migration 016): the wallet is the primary key. */
export const ADMIN_WALLET_UNIQUE: UniqueConstraint = { name: 'admin_wallets_pkey', sqliteColumns: 'admin_wallets.wallet' };
export const CHANNEL_NAME_UNIQUE: UniqueConstraint = {
  name: 'channels_tenant_name_unique',
  sqliteColumns: 'channels.tenant_id, channels.name',
};
export const BACKUP_UNIQUE: UniqueConstraint = { name: 'backups_pk', sqliteColumns: 'backups.channel_id, backups.timestamp' };

const PG_UNIQUE_VIOLATION = '23505';
const SQLITE_UNIQUE_VIOLATIONS = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export function violates(error: unknown, constraint: UniqueConstraint): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: pgConstraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === PG_UNIQUE_VIOLATION) return pgConstraint === constraint.name;
  // A primary key (backups_pk) fails with its own code, under the same message.
  return SQLITE_UNIQUE_VIOLATIONS.has(String(code)) && message === `UNIQUE constraint failed: ${constraint.sqliteColumns}`;
}
