import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ContractContext, hash, nonce } from './support.ts';

/** Server nonces (claimed once, atomically) and revoked messages. */
export function nonceAndRevocationContract(ctx: ContractContext): void {
  describe('nonces and revocations', () => {
    test('a saved nonce is claimed once, then recognised by its message', async () => {
      const now = Date.now();
      const n = nonce();
      const mine = hash();
      await ctx.store.saveNonce(n, now + 60_000);
      assert.equal(await ctx.store.claimNonce(n, mine, now, now + 3_600_000), 'claimed');
      assert.equal(await ctx.store.claimNonce(n, mine, now + 1, now + 3_600_000), 'already-claimed-by-this-message');
      assert.equal(await ctx.store.claimNonce(n, hash(), now + 1, now + 3_600_000), 'claimed-by-another-message');
    });

    test('unknown and expired nonces are unknown', async () => {
      const now = Date.now();
      assert.equal(await ctx.store.claimNonce(nonce(), hash(), now, now + 1000), 'unknown');
      const n = nonce();
      await ctx.store.saveNonce(n, now);
      assert.equal(await ctx.store.claimNonce(n, hash(), now, now + 1000), 'unknown', 'expiring at now is expired');
      assert.equal(await ctx.store.claimNonce(n, hash(), now + 5, now + 1000), 'unknown');
    });

    test('a claim keeps the nonce until the message expires, and saving it again does not reopen it', async () => {
      const now = 2_000_000_000_000;
      const n = nonce();
      const mine = hash();
      await ctx.store.saveNonce(n, now + 10);
      assert.equal(await ctx.store.claimNonce(n, mine, now, now + 1000), 'claimed');
      await ctx.store.saveNonce(n, now + 10);
      assert.equal(await ctx.store.claimNonce(n, hash(), now, now + 1000), 'claimed-by-another-message');
      await ctx.store.purgeExpired(now + 500);
      assert.equal(
        await ctx.store.claimNonce(n, mine, now + 500, now + 1000),
        'already-claimed-by-this-message',
        'outlived its issue expiry',
      );
      await ctx.store.purgeExpired(now + 1000);
      assert.equal(await ctx.store.claimNonce(n, mine, now + 1000, now + 2000), 'unknown');
    });

    test('of concurrent claims by different messages, exactly one wins', async () => {
      const now = Date.now();
      const n = nonce();
      await ctx.store.saveNonce(n, now + 60_000);
      const results = await Promise.all(Array.from({ length: 8 }, () => ctx.store.claimNonce(n, hash(), now, now + 60_000)));
      assert.equal(results.filter((r) => r === 'claimed').length, 1);
      assert.equal(results.filter((r) => r === 'claimed-by-another-message').length, 7);
    });

    test('revoking is idempotent and keeps the later expiry', async () => {
      const base = 1_000;
      const [shortened, extended] = [hash(), hash()];
      await ctx.store.revokeMessage(shortened, base + 50);
      await ctx.store.revokeMessage(shortened, base + 20);
      await ctx.store.revokeMessage(extended, base + 20);
      await ctx.store.revokeMessage(extended, base + 50);
      await ctx.store.revokeMessage(extended, base + 50);
      assert.equal(await ctx.store.isMessageRevoked(shortened), true);
      assert.equal(await ctx.store.isMessageRevoked(hash()), false);
      assert.equal(await ctx.store.purgeExpired(base + 30), 0);
      assert.equal(await ctx.store.isMessageRevoked(shortened), true);
      assert.equal(await ctx.store.isMessageRevoked(extended), true);
      assert.equal(await ctx.store.purgeExpired(base + 50), 2);
      assert.equal(await ctx.store.isMessageRevoked(extended), false);
    });

    test('purgeExpired deletes nonces and revocations expired at or before now and counts them', async () => {
      const base = 5_000;
      const [early, due, later] = [nonce(), nonce(), nonce()];
      await ctx.store.saveNonce(early, base - 1);
      await ctx.store.saveNonce(due, base);
      await ctx.store.saveNonce(later, base + 1);
      await ctx.store.revokeMessage(hash(), base);
      const kept = hash();
      await ctx.store.revokeMessage(kept, base + 1);
      assert.equal(await ctx.store.purgeExpired(base), 3);
      assert.equal(await ctx.store.purgeExpired(base), 0);
      assert.equal(await ctx.store.isMessageRevoked(kept), true);
      assert.equal(await ctx.store.claimNonce(later, hash(), base, base + 10), 'claimed');
    });
  });
}
