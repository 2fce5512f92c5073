import pg from 'pg';
import { ADMIN_DATABASE_URL } from '../../test/helpers/postgres.ts';

/**
 * What the backends of each database are doing, sampled from pg_stat_activity while a load runs:
 * where a write waits (a row lock held by another transaction shows as `Lock:transactionid` or
 * `Lock:tuple`, a commit's WAL flush as `IO:WALSync`/`LWLock:WALWrite`) and how long transactions
 * sit `idle in transaction`, holding what they locked while the service does something else between
 * two statements. Each deployment has a database of its own, so the samples tell the sides apart.
 */

export interface WaitCounts {
  /** Samples of a backend of the database that was in a transaction or a statement, by what it was doing. */
  states: Record<string, number>;
  /** Samples in which the database had a backend in a transaction: those of its side's runs, as the sides take turns. */
  samples: number;
}

/** Samples every `everyMs` until stopped; `stop` answers the counts by database name. */
export async function sampleWaits(everyMs = 20): Promise<{ stop(): Promise<Map<string, WaitCounts>> }> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  const counts = new Map<string, WaitCounts>();
  let running = true;
  const loop = (async () => {
    while (running) {
      const { rows } = await client.query<{ datname: string; what: string; n: string }>(
        `select datname,
                case when state = 'idle in transaction' then 'idle in transaction (the service between statements)'
                     when wait_event is null then 'running'
                     else wait_event_type || ':' || wait_event end as what,
                count(*) as n
         from pg_stat_activity
         where datname like 'wa\\_test\\_%' and pid <> pg_backend_pid() and state in ('active', 'idle in transaction')
         group by 1, 2`,
      );
      for (const datname of new Set(rows.map((row) => row.datname))) {
        const entry = counts.get(datname) ?? { states: {}, samples: 0 };
        entry.samples++;
        counts.set(datname, entry);
      }
      for (const row of rows) counts.get(row.datname)!.states[row.what] = (counts.get(row.datname)!.states[row.what] ?? 0) + Number(row.n);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.end();
      return counts;
    },
  };
}

/** "Lock:transactionid 12.3, running 4.1, …": backends in each state per sample of its side's runs, on average, the most first. */
export function waitsText(counts: WaitCounts | undefined, limit = 4): string {
  if (!counts || counts.samples === 0) return 'no samples';
  return Object.entries(counts.states)
    .sort(([, a], [, b]) => b - a)
    .slice(0, limit)
    .map(([what, n]) => `${what} ${(n / counts.samples).toFixed(1)}`)
    .join(', ');
}
