import { AppError } from './app-error.ts';

/**
 * AppErrors raised from more than one place, built here so that each reads the same wherever it
 * comes from. An error raised in one place only stays inline there, where it is clearest.
 */

export function tenantNotFound(id: string): AppError {
  return new AppError('TENANT_NOT_FOUND', `Tenant ${id} does not exist`);
}

export function channelNotFound(id: string): AppError {
  return new AppError('CHANNEL_NOT_FOUND', `Channel ${id} does not exist`);
}

export function adminNotFound(id: string): AppError {
  return new AppError('ADMIN_NOT_FOUND', `Admin ${id} does not exist`);
}

export function walletTaken(wallet: string): AppError {
  return new AppError('WALLET_TAKEN', `Wallet ${wallet} already belongs to an admin`);
}

/** The refusal of a second backup of a channel in one second, wherever it is detected. */
export function backupExists(timestamp: string): AppError {
  return new AppError('BACKUP_EXISTS', `This channel already has a backup ${timestamp}; backups are one per second, try again in a second`);
}

/** The metadata database cannot be reached (down, restarting, locked too long): worth a retry. */
export function metadataUnavailable(cause: unknown): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The metadata database is unavailable; try again shortly', undefined, { cause });
}

/** The metadata database's disk is full: the write was refused whole. */
export function metadataFull(cause: unknown): AppError {
  return new AppError('INSUFFICIENT_STORAGE', 'The metadata database has no space left; nothing was changed', undefined, { cause });
}

/** The metadata database refuses writes (its file is read-only to the service): an operator must act. */
export function metadataReadOnly(cause: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'The metadata database cannot be written now; nothing was changed, and an operator must fix its storage',
    undefined,
    { cause },
  );
}

/**
 * A write of a live file that was not recorded: everything it did before is undone (its stored
 * bytes removed), so the file is as it was. `outcome` says so to a client that reads the body.
 */
export function writeUndone(cause: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'The metadata database did not record the write; nothing was changed, try again shortly',
    { outcome: 'unchanged' },
    { cause },
  );
}

/**
 * A write whose recording the database may have received but never confirmed (it stopped
 * answering at that moment): whether it took effect is known once the database is back, from the
 * file's ETag; the journal settles it either way, so the file is never half written.
 */
export function writeUnconfirmed(cause: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    "The metadata database stopped answering while the write was being recorded: it took effect whole or not at all, and the file's ETag tells which once the database is back",
    { outcome: 'unknown' },
    { cause },
  );
}

/**
 * The audit entry of a change could not be appended (docs/audit-chain.md): it is appended in the
 * change's own transaction, so the change did not commit either.
 */
export function auditNotRecorded(cause: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'The audit log could not record this change, so it was not made: nothing was changed; try again shortly',
    { outcome: 'unchanged' },
    { cause },
  );
}

/** The database answered a COMMIT with a refusal (a deferred constraint, a serialization failure): it rolled the transaction back. */
export function commitRefused(cause: unknown): AppError {
  return new AppError(
    'SERVICE_UNAVAILABLE',
    'The metadata database refused to commit this change: nothing was changed; try again shortly',
    { outcome: 'unchanged' },
    { cause },
  );
}
