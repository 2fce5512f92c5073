import { createHash } from 'node:crypto';
import pg from 'pg';
import { metadataUnavailable } from '../errors/common-errors.ts';
import type { Logger } from '../logging/logger.ts';
import type { OpenedFileLocks } from './file-locks.ts';
import { KeyedMutex } from './keyed-mutex.ts';

/** Connections that may wait on or hold a lock at once; further lockers queue in the pool. */
const LOCK_CONNECTIONS = 16;

/**
 * Per-file locks for several instances on one PostgreSQL database: a session advisory lock per
 * key, held on a connection of a pool of its own, so that work under a lock never waits for a
 * connection that a lock holder occupies. Inside one process the keyed queue comes first, so a
 * process uses at most one connection per key.
 */
export class PostgresLocks implements OpenedFileLocks {
  private readonly inProcess = new KeyedMutex();
  private readonly pool: pg.Pool;

  constructor(url: string, logger: Logger) {
    this.pool = new pg.Pool({
      connectionString: url,
      max: LOCK_CONNECTIONS,
      idleTimeoutMillis: 30_000,
      application_name: 'wallet-admin-locks',
    });
    this.pool.on('error', (err) => logger.error({ err }, 'PostgreSQL lock connection lost; the pool will reconnect'));
    // A checked-out connection that dies reports through its pending query; the event alone would crash.
    this.pool.on('connect', (client) => client.on('error', () => {}));
  }

  runExclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.inProcess.runExclusive(key, async () => {
      const id = lockIdOf(key);
      // The lock's own connection failing is an outage of the metadata database, as for any query.
      const client = await this.pool.connect().catch((error: unknown) => {
        throw metadataUnavailable(error);
      });
      let broken: Error | undefined;
      try {
        await client.query('select pg_advisory_lock($1)', [id]).catch((error: unknown) => {
          if (!(error instanceof Error && isConnectionFailure(error))) throw error;
          broken = error;
          throw metadataUnavailable(error);
        });
        try {
          return await work();
        } finally {
          await client.query('select pg_advisory_unlock($1)', [id]).catch((error: Error) => (broken = error));
        }
      } catch (error) {
        broken ??= error instanceof Error && isConnectionFailure(error) ? error : undefined;
        throw error;
      } finally {
        // A connection whose unlock failed may still hold the lock: it is closed, which releases it.
        client.release(broken);
      }
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** A signed 64-bit lock id from the key (advisory locks are keyed by bigint). */
function lockIdOf(key: string): string {
  return createHash('sha256').update(`wallet-admin:file:${key}`).digest().readBigInt64BE(0).toString();
}

function isConnectionFailure(error: Error): boolean {
  return (
    'code' in error &&
    typeof error.code === 'string' &&
    (error.code.startsWith('08') || error.code === '57P01' || error.code === 'ECONNRESET')
  );
}
