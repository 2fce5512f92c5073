import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Deployment } from './deployment.ts';

/** The tables a backup could add rows to; channel_clocks is updated in place, so it never adds one. */
export const COUNTED_TABLES = ['backups', 'file_versions', 'audit_events'] as const;
export type RowCounts = Record<(typeof COUNTED_TABLES)[number], number>;

export interface RowCounter {
  count(): Promise<RowCounts>;
  close(): Promise<void>;
}

/**
 * Counts rows of the deployment's metadata from the bench process, beside the running service:
 * the SQLite file opened read-only (WAL mode lets it read while the service writes), or the
 * PostgreSQL database over its own connection.
 */
export async function openRowCounter(deployment: Deployment): Promise<RowCounter> {
  const sqlFor = (table: string) => `select count(*) as n from ${table}`;
  if (deployment.engine === 'postgres') {
    return {
      // A connection per count: the bench outlives many minutes of a shared PostgreSQL, which
      // others' tests may restart meanwhile, and a dropped idle connection must not crash the run.
      async count() {
        const client = new pg.Client({ connectionString: deployment.env.DATABASE_URL });
        client.on('error', () => {}); // a drop during the query fails the query below
        await client.connect();
        try {
          const counts = {} as RowCounts;
          for (const table of COUNTED_TABLES) counts[table] = Number((await client.query<{ n: string }>(sqlFor(table))).rows[0]!.n);
          return counts;
        } finally {
          await client.end();
        }
      },
      async close() {},
    };
  }
  const db = new Database(path.join(deployment.dataDir, 'metadata.sqlite'), { readonly: true, fileMustExist: true });
  return {
    async count() {
      const counts = {} as RowCounts;
      for (const table of COUNTED_TABLES) counts[table] = (db.prepare(sqlFor(table)).get() as { n: number }).n;
      return counts;
    },
    async close() {
      db.close();
    },
  };
}

/** Rows added between two counts, by table, and their sum. */
export function rowsAdded(before: RowCounts, after: RowCounts): { total: number; byTable: RowCounts } {
  const byTable = {} as RowCounts;
  for (const table of COUNTED_TABLES) byTable[table] = after[table] - before[table];
  return { total: Object.values(byTable).reduce((sum, n) => sum + n, 0), byTable };
}
