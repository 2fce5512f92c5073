/**
 * Unique constraints the store turns into AppError codes. Both engines report a violation
 * differently: PostgreSQL names the constraint, SQLite lists the columns in its message.
 */
export interface UniqueConstraint {
  name: string;
  sqliteColumns: string;
}

export const WALLET_UNIQUE: UniqueConstraint = { name: 'admins_wallet_unique', sqliteColumns: 'admins.wallet' };
export const CHANNEL_NAME_UNIQUE: UniqueConstraint = { name: 'channels_tenant_name_unique', sqliteColumns: 'channels.tenant_id, channels.name' };

const PG_UNIQUE_VIOLATION = '23505';
const SQLITE_UNIQUE_VIOLATIONS = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

export function violates(error: unknown, constraint: UniqueConstraint): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint: pgConstraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === PG_UNIQUE_VIOLATION) return pgConstraint === constraint.name;
  // A primary key (backups_pk) fails with its own code, under the same message.
  return SQLITE_UNIQUE_VIOLATIONS.has(String(code)) && message === `UNIQUE constraint failed: ${constraint.sqliteColumns}`;
}
export const BACKUP_UNIQUE: UniqueConstraint = { name: 'backups_pk', sqliteColumns: 'backups.channel_id, backups.timestamp' };
