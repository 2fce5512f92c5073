import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import type { NonceClaim } from './types.ts';

type Db = Kysely<Database>;

export async function insertNonce(db: Db, nonce: string, expiresAt: number): Promise<void> {
  // Saving a nonce again must never reopen one that a message already claimed.
  await db.insertInto('auth_nonces').values({ nonce, expires_at: expiresAt, message_hash: null }).onConflict((oc) => oc.column('nonce').doNothing()).execute();
}

/**
 * The conditional UPDATE alone decides who wins: of two requests racing with different messages,
 * exactly one changes the row. The read that follows a miss only explains why it missed, and a
 * claimed row never changes back, so that read cannot contradict the decision.
 */
export async function claimNonce(db: Db, nonce: string, messageHash: string, now: number, keepUntil: number): Promise<NonceClaim> {
  const claimed = await db
    .updateTable('auth_nonces')
    .set({ message_hash: messageHash, expires_at: keepUntil })
    .where('nonce', '=', nonce)
    .where('message_hash', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (claimed.numUpdatedRows > 0n) return 'claimed';
  const row = await db.selectFrom('auth_nonces').select('message_hash').where('nonce', '=', nonce).executeTakeFirst();
  if (!row || row.message_hash === null) return 'unknown';
  return row.message_hash === messageHash ? 'already-claimed-by-this-message' : 'claimed-by-another-message';
}

export async function upsertRevocation(db: Db, messageHash: string, expiresAt: number): Promise<void> {
  await db
    .insertInto('revoked_messages')
    .values({ message_hash: messageHash, expires_at: expiresAt })
    .onConflict((oc) =>
      oc
        .column('message_hash')
        .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') })
        .where((eb) => eb('excluded.expires_at', '>', eb.ref('revoked_messages.expires_at'))),
    )
    .execute();
}

export async function revocationExists(db: Db, messageHash: string): Promise<boolean> {
  const row = await db.selectFrom('revoked_messages').select('message_hash').where('message_hash', '=', messageHash).executeTakeFirst();
  return row !== undefined;
}

export async function deleteExpired(db: Db, now: number): Promise<number> {
  const nonces = await db.deleteFrom('auth_nonces').where('expires_at', '<=', now).executeTakeFirst();
  const revocations = await db.deleteFrom('revoked_messages').where('expires_at', '<=', now).executeTakeFirst();
  return Number(nonces.numDeletedRows + revocations.numDeletedRows);
}
