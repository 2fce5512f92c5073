import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Admin } from '../../src/model/admins.ts';
import type { Channel } from '../../src/model/channels.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import type { Tenant } from '../../src/model/tenants.ts';
import { newWallet, type TestWallet } from './wallets.ts';

export interface TenantFixture {
  tenant: Tenant;
  owner: Admin;
  ownerWallet: TestWallet;
  channel: Channel;
}

/** A tenant with an owner admin (of a fresh wallet) linked to one channel. */
export async function createTenantFixture(store: MetadataStore, name = 'Tenant'): Promise<TenantFixture> {
  const tenant = await store.createTenant({ name: `${name} ${Math.random().toString(36).slice(2, 8)}` });
  const ownerWallet = newWallet();
  const owner = await store.createAdmin({ tenantId: tenant.id, wallet: ownerWallet.address, displayName: `${name} owner` });
  const channel = await store.createChannel({ tenantId: tenant.id, name: 'main' });
  await store.linkChannel(channel.id, owner.id);
  return { tenant, owner, ownerWallet, channel };
}

/** A tenant fixture written straight into the metadata of a service that will run in its own process. */
export async function seedTenantFixture(location: { dataDir: string; databaseUrl?: string }, name: string): Promise<TenantFixture> {
  const store = await openMetadataStore(location);
  try {
    return await createTenantFixture(store, name);
  } finally {
    await store.close();
  }
}

export async function createMemberAdmin(
  store: MetadataStore,
  fixture: TenantFixture,
  options: { permissions?: string[]; features?: string[]; channels?: Channel[]; displayName?: string } = {},
): Promise<{ admin: Admin; wallet: TestWallet }> {
  const wallet = newWallet();
  const admin = await store.createAdmin({
    tenantId: fixture.tenant.id,
    wallet: wallet.address,
    displayName: options.displayName ?? 'Member',
    ownerAdminId: fixture.owner.id,
    permissions: options.permissions ?? [],
    features: options.features ?? [],
  });
  for (const channel of options.channels ?? []) await store.linkChannel(channel.id, admin.id);
  return { admin, wallet };
}
