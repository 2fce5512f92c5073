import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { backupContract } from './contract/backups.ts';
import { channelAndPrincipalContract } from './contract/channels-and-principal.ts';
import { lifecycleContract } from './contract/lifecycle.ts';
import { nameContract } from './contract/names.ts';
import { nonceAndRevocationContract } from './contract/nonces-and-revocations.ts';
import { ContractContext, type TestStorage } from './contract/support.ts';
import { tenantAndAdminContract } from './contract/tenants-and-admins.ts';

export type { TestStorage } from './contract/support.ts';

/**
 * The behaviour every MetadataStore must have, whatever the engine. Each test makes its own
 * tenant, so tests share one store without sharing rows.
 */
export function metadataStoreContract(engine: 'sqlite' | 'postgres', createStorage: () => Promise<TestStorage>): void {
  describe(`metadata store contract (${engine})`, () => {
    const ctx = new ContractContext(createStorage);
    before(async () => {
      ctx.storage = await createStorage();
      ctx.store = await openMetadataStore(ctx.storage.options);
    });
    after(async () => {
      await ctx.store.close();
      await ctx.storage.drop();
    });

    test('reports its engine and answers ping', async () => {
      assert.equal(ctx.store.engine, engine);
      await ctx.store.ping();
    });

    tenantAndAdminContract(ctx);
    channelAndPrincipalContract(ctx);
    nameContract(ctx);
    nonceAndRevocationContract(ctx);
    lifecycleContract(ctx);
    backupContract(ctx);
  });
}
