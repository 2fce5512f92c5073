import { setTimeout as sleep } from 'node:timers/promises';
import { isSqliteBusy } from './database-errors.ts';

/**
 * How long one statement (or one BEGIN IMMEDIATE) waits in all for another connection's lock
 * before it gives up and the caller is told SERVICE_UNAVAILABLE, "nothing changed, try again":
 * the 5 s that SQLite's busy_timeout gave before the waiting moved here. It outlasts the other
 * process's write transactions (the CLI's restores, a migration; milliseconds to a second or so),
 * and stays well below the point where a client would rather hear an answer than keep waiting.
 */
export const SQLITE_BUSY_BUDGET_MS = 5000;

/**
 * Pauses between attempts grow from the first to the longest: a lock held for a moment is taken
 * again within a millisecond or two, and a long one costs an attempt every 20 ms (a failed
 * attempt is a few system calls), which is also the longest a waiter lingers once it is free.
 */
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 20;

/**
 * Runs `attempt` until it does not fail with SQLITE_BUSY or `budgetMs` has passed, pausing on
 * timers in between, so that the process's event loop runs while it waits; SQLite's own busy
 * handler sleeps inside the synchronous better-sqlite3 call and stops the whole process instead.
 * Once the budget is spent, the last SQLITE_BUSY is thrown as it is.
 *
 * Only for an attempt that changes nothing when it fails busy: a statement outside a transaction
 * (SQLite undoes it whole) or a BEGIN. A statement inside a transaction is not retried: SQLite's
 * advice is to roll the transaction back, whose snapshot may be out of date.
 */
export async function retryWhileBusy<T>(attempt: () => Promise<T>, budgetMs: number): Promise<T> {
  const deadline = performance.now() + budgetMs;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    try {
      return await attempt();
    } catch (error) {
      const left = deadline - performance.now();
      if (!isSqliteBusy(error) || left <= 0) throw error;
      // Jitter, so that two waiting processes do not keep retrying in step.
      await sleep(Math.min(left, pause * (0.5 + Math.random() / 2)));
    }
  }
}
