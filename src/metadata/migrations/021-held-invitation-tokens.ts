import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * A held invitation's proposal kept the invitation's token in clear in its result, and showed it to
 * its proposer on every read (docs/approvals.md). From this release the token is shown once and then
 * only its SHA-256 kept: the tokens already stored are replaced by their SHA-256 here, on SQLite and
 * PostgreSQL alike (the result is JSON text, read and written back row by row; a tenant holds a few).
 * Their proposers have read them before; one who lost it revokes the invitation and invites again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const rows = await db
    .selectFrom('proposals')
    .select(['id', 'result'])
    .where('operation', '=', 'invitation.create')
    .where('result', 'is not', null)
    .execute();
  for (const row of rows as { id: string; result: string }[]) {
    const result = JSON.parse(row.result) as Record<string, unknown>;
    if (typeof result.token !== 'string') continue;
    const { token, ...rest } = result;
    const kept = { ...rest, tokenSha256: createHash('sha256').update(token, 'utf8').digest('hex') };
    await db
      .updateTable('proposals')
      .set({ result: JSON.stringify(kept) })
      .where('id', '=', row.id)
      .execute();
  }
}

/** The tokens are gone for good: nothing to bring back. */
export async function down(): Promise<void> {}
