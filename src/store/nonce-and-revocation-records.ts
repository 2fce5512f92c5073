import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import type { NonceAndRevocationRecords } from './types.ts';

/** Nonces this service issued and signed messages that were logged out, both kept until they expire. */
export function nonceAndRevocationRecords(db: Kysely<Database>): NonceAndRevocationRecords {
  return {
    async saveNonce(nonce, expiresAt) {
      // Saving a nonce again must never reopen one that a message already claimed.
      await db
        .insertInto('auth_nonces')
        .values({ nonce, expires_at: expiresAt, message_hash: null })
        .onConflict((oc) => oc.column('nonce').doNothing())
        .execute();
    },

    /**
     * The conditional UPDATE alone decides who wins: of two requests racing with different messages,
     * exactly one changes the row. The read that follows a miss only explains why it missed, and a
     * claimed row never changes back, so that read cannot contradict the decision.
     */
    async claimNonce(nonce, messageHash, now, keepUntil) {
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
    },

    async revokeMessage(messageHash, expiresAt) {
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
    },

    async isMessageRevoked(messageHash) {
      const row = await db.selectFrom('revoked_messages').select('message_hash').where('message_hash', '=', messageHash).executeTakeFirst();
      return row !== undefined;
    },

    async purgeExpired(now) {
      const nonces = await db.deleteFrom('auth_nonces').where('expires_at', '<=', now).executeTakeFirst();
      const revocations = await db.deleteFrom('revoked_messages').where('expires_at', '<=', now).executeTakeFirst();
      return Number(nonces.numDeletedRows + revocations.numDeletedRows);
    },
  };
}
