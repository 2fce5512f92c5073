import { isAppError } from '../../src/errors/app-error.ts';
import { openDatabase } from '../../src/metadata/database.ts';

/**
 * One of several processes adding to one counter in `<DATA_DIR>/metadata.sqlite`, the way the
 * service and the CLI write one file: through openDatabase and Kysely transactions that read
 * first and write later. It prints `ready`, waits for a line on standard input (so that the
 * processes start together rather than apart by their start-up time), runs TRANSACTIONS
 * transactions of "read the counter, write it + 1", and exits 0; on the first error it reports
 * the error on standard error and exits 1.
 * Settings: DATA_DIR (the counter table exists, see sqlite-writers.unit.test.ts) and TRANSACTIONS.
 */
const { db } = await openDatabase({ dataDir: process.env.DATA_DIR!, logger: console });
const counterDb = db.withTables<{ counter: { id: number; value: number } }>();
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

try {
  for (let i = 0; i < Number(process.env.TRANSACTIONS); i++) {
    await counterDb.transaction().execute(async (trx) => {
      const { value } = await trx.selectFrom('counter').select('value').where('id', '=', 1).executeTakeFirstOrThrow();
      await trx
        .updateTable('counter')
        .set({ value: value + 1 })
        .where('id', '=', 1)
        .execute();
    });
  }
} catch (error) {
  const cause = isAppError(error) ? error.cause : undefined;
  process.stderr.write(
    `${String(error)}${cause === undefined ? '' : ` (cause: ${String(cause)}, ${(cause as { code?: string }).code})`}\n`,
  );
  process.exitCode = 1;
} finally {
  await db.destroy();
}
