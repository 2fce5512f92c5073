import type { Kysely } from 'kysely';
import type { NonceAndRevocationRecords } from '../model/sign-in-records.ts';
import type { Database } from './schema.ts';

/** Nonces that messages have claimed, and signed messages that were logged out, both kept until they expire. */
export function nonceAndRevocationRecords(db: Kysely<Database>): NonceAndRevocationRecords {
  return {
    /**
     * The insert alone decides who wins: of two requests racing with different messages, exactly
     * one row is written. The read that follows a lost race only tells which message holds it, and
     * a claim never changes, so that read cannot contradict the decision.
     */
    async claimNonce(nonce, messageHash, keepUntil) {
      const inserted = await db
        .insertInto('auth_nonces')
        .values({ nonce, expires_at: keepUntil, message_hash: messageHash })
        .onConflict((oc) => oc.column('nonce').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return 'claimed';
      const row = await db.selectFrom('auth_nonces').select('message_hash').where('nonce', '=', nonce).executeTakeFirst();
      // Purged between the two statements: its claim had expired, so the nonce had too.
      if (!row) return 'claimed-by-another-message';
      return row.message_hash === messageHash ? 'already-claimed-by-this-message' : 'claimed-by-another-message';
    },

    async revokeMessage(messageHash, expiresAt, now) {
      await db
        .insertInto('revoked_messages')
        .values({ message_hash: messageHash, expires_at: expiresAt, revoked_at: now })
        .onConflict((oc) =>
          oc
            .column('message_hash')
            // A later expiry is news to the instances that loaded the first: revoked_at tells them.
            .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at'), revoked_at: (eb) => eb.ref('excluded.revoked_at') })
            .where((eb) => eb('excluded.expires_at', '>', eb.ref('revoked_messages.expires_at'))),
        )
        .execute();
    },

    async revocationsSince(since, now) {
      const rows = await db
        .selectFrom('revoked_messages')
        .select(['message_hash', 'expires_at'])
        .where('revoked_at', '>=', since)
        .where('expires_at', '>', now)
        .execute();
      return rows.map((row) => ({ messageHash: row.message_hash, expiresAt: Number(row.expires_at) }));
    },

    async purgeExpired(now) {
      const nonces = await db.deleteFrom('auth_nonces').where('expires_at', '<=', now).executeTakeFirst();
      const revocations = await db.deleteFrom('revoked_messages').where('expires_at', '<=', now).executeTakeFirst();
      return Number(nonces.numDeletedRows + revocations.numDeletedRows);
    },
  };
}
