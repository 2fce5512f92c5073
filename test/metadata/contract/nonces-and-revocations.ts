import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ContractContext, hash, nonce } from './support.ts';

/** Nonce claims (one message per nonce, decided atomically), revoked messages, and the shared secrets. */
export function nonceAndRevocationContract(ctx: ContractContext): void {
  describe('nonces, revocations and service secrets', () => {
    test('a nonce is claimed once, then recognised by its message', async () => {
      const now = Date.now();
      const n = nonce();
      const mine = hash();
      assert.equal(await ctx.store.claimNonce(n, mine, now + 3_600_000), 'claimed');
      assert.equal(await ctx.store.claimNonce(n, mine, now + 3_600_000), 'already-claimed-by-this-message');
      assert.equal(await ctx.store.claimNonce(n, hash(), now + 3_600_000), 'claimed-by-another-message');
    });

    test('a claim stays until it expires, then goes with the purge', async () => {
      const now = 2_000_000_000_000;
      const n = nonce();
      const mine = hash();
      assert.equal(await ctx.store.claimNonce(n, mine, now + 1000), 'claimed');
      await ctx.store.purgeExpired(now + 999);
      assert.equal(await ctx.store.claimNonce(n, hash(), now + 1000), 'claimed-by-another-message');
      await ctx.store.purgeExpired(now + 1000);
      // Gone: the service checks a nonce's own expiry (signed into it) before it ever asks for a claim.
      assert.equal(await ctx.store.claimNonce(n, hash(), now + 2000), 'claimed');
    });

    test('of concurrent claims by different messages, exactly one wins', async () => {
      const now = Date.now();
      const n = nonce();
      const results = await Promise.all(Array.from({ length: 8 }, () => ctx.store.claimNonce(n, hash(), now + 60_000)));
      assert.equal(results.filter((r) => r === 'claimed').length, 1);
      assert.equal(results.filter((r) => r === 'claimed-by-another-message').length, 7);
    });

    test('revoking is idempotent and keeps the later expiry, which counts as a new revocation', async () => {
      const base = 1_000;
      const [shortened, extended] = [hash(), hash()];
      await ctx.store.revokeMessage(shortened, base + 50, 100);
      await ctx.store.revokeMessage(shortened, base + 20, 200);
      await ctx.store.revokeMessage(extended, base + 20, 100);
      await ctx.store.revokeMessage(extended, base + 50, 300);
      await ctx.store.revokeMessage(extended, base + 50, 400);
      const since = async (t: number, now: number) =>
        Object.fromEntries((await ctx.store.revocationsSince(t, now)).map((r) => [r.messageHash, r.expiresAt]));
      assert.deepEqual(await since(0, base), { [shortened]: base + 50, [extended]: base + 50 });
      // The later expiry of `extended` was news at 300; a shorter one for `shortened` at 200 was not.
      assert.deepEqual(await since(250, base), { [extended]: base + 50 });
      assert.deepEqual(await since(301, base), {});
      assert.equal(await ctx.store.purgeExpired(base + 30), 0);
      assert.deepEqual(await since(0, base + 49), { [shortened]: base + 50, [extended]: base + 50 });
      assert.deepEqual(await since(0, base + 50), {}, 'expired revocations are not handed out');
      assert.equal(await ctx.store.purgeExpired(base + 50), 2);
    });

    test('purgeExpired deletes claims and revocations expired at or before now and counts them', async () => {
      const base = 5_000;
      const [early, due, later] = [nonce(), nonce(), nonce()];
      await ctx.store.claimNonce(early, hash(), base - 1);
      await ctx.store.claimNonce(due, hash(), base);
      const laterMessage = hash();
      await ctx.store.claimNonce(later, laterMessage, base + 1);
      await ctx.store.revokeMessage(hash(), base, 1);
      const kept = hash();
      await ctx.store.revokeMessage(kept, base + 1, 1);
      assert.equal(await ctx.store.purgeExpired(base), 3);
      assert.equal(await ctx.store.purgeExpired(base), 0);
      assert.deepEqual(
        (await ctx.store.revocationsSince(0, base)).map((r) => r.messageHash),
        [kept],
      );
      assert.equal(await ctx.store.claimNonce(later, laterMessage, base + 1), 'already-claimed-by-this-message');
    });

    test('a service secret is made once: every later caller gets the first value', async () => {
      const name = `test-secret-${nonce()}`;
      const first = await ctx.store.serviceSecret(name, () => 'first');
      assert.equal(first, 'first');
      assert.equal(await ctx.store.serviceSecret(name, () => 'second'), 'first');
      const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => ctx.store.serviceSecret(`${name}-race`, () => `v${i}`)));
      assert.equal(new Set(racing).size, 1, 'concurrent first callers agree on one value');
    });
  });
}
