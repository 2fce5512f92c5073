import type { Admin, Channel, MetadataStore, Tenant } from '../../src/store/types.ts';
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

export async function createMemberAdmin(
  store: MetadataStore,
  fixture: TenantFixture,
  options: { permissions?: string[]; features?: string[]; channels?: Channel[] } = {},
): Promise<{ admin: Admin; wallet: TestWallet }> {
  const wallet = newWallet();
  const admin = await store.createAdmin({
    tenantId: fixture.tenant.id,
    wallet: wallet.address,
    displayName: 'Member',
    ownerAdminId: fixture.owner.id,
    permissions: options.permissions ?? [],
    features: options.features ?? [],
  });
  for (const channel of options.channels ?? []) await store.linkChannel(channel.id, admin.id);
  return { admin, wallet };
}
