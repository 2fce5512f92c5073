import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openMetadataStore } from '../../../src/metadata/open-metadata-store.ts';
import { type ContractContext, nonce, randomWallet } from './support.ts';

/** Opening, reopening, sharing and closing a store. */
export function lifecycleContract(ctx: ContractContext): void {
  describe('lifecycle', () => {
    test('a reopened store keeps its data', async () => {
      const fresh = await ctx.createStorage();
      try {
        const first = await openMetadataStore(fresh.options);
        const t = await first.createTenant({ name: 'Kept' });
        const a = await first.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: 'Kept', permissions: ['files:read'] });
        await first.close();
        const second = await openMetadataStore(fresh.options);
        assert.deepEqual(await second.getTenant(t.id), t);
        assert.deepEqual(await second.getAdmin(a.id), a);
        await second.close();
      } finally {
        await fresh.drop();
      }
    });

    test("two stores on one database see each other's writes", async () => {
      const other = await openMetadataStore(ctx.storage.options);
      try {
        const t = await ctx.store.createTenant({ name: 'Shared' });
        const a = await other.createAdmin({ tenantId: t.id, wallet: randomWallet(), displayName: 'From other' });
        assert.deepEqual(await ctx.store.getAdmin(a.id), a);
        await ctx.store.grantPermission(a.id, 'audit:read');
        assert.deepEqual((await other.loadPrincipalByWallet(a.wallet))?.admin.permissions, ['audit:read']);
        const n = nonce();
        assert.equal(await other.claimNonce(n, 'h1', Date.now() + 60_000), 'claimed');
        assert.equal(await ctx.store.claimNonce(n, 'h2', Date.now() + 60_000), 'claimed-by-another-message');
        assert.equal(await other.serviceSecret('shared-between-stores', () => 'from other'), 'from other');
        assert.equal(await ctx.store.serviceSecret('shared-between-stores', () => 'from this'), 'from other');
      } finally {
        await other.close();
      }
    });

    test('close releases the database, may be called twice, and ping then fails', async () => {
      const fresh = await ctx.createStorage();
      try {
        const closing = await openMetadataStore(fresh.options);
        await closing.ping();
        await closing.close();
        await closing.close();
        await assert.rejects(closing.ping());
      } finally {
        await fresh.drop();
      }
    });
  });
}
