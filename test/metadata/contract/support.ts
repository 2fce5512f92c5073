import { randomBytes } from 'node:crypto';
import type { StoreOptions } from '../../../src/metadata/open-metadata-store.ts';
import type { Admin } from '../../../src/model/admins.ts';
import type { MetadataStore } from '../../../src/model/metadata-store.ts';
import type { Tenant } from '../../../src/model/tenants.ts';

/** Somewhere empty to keep metadata: a temp dataDir, or a fresh PostgreSQL database. */
export interface TestStorage {
  options: StoreOptions;
  drop(): Promise<void>;
}

/** What every part of the contract works with; `store` and `storage` are set once the suite starts. */
export class ContractContext {
  store!: MetadataStore;
  storage!: TestStorage;

  constructor(readonly createStorage: () => Promise<TestStorage>) {}

  tenant(name = 'Acme'): Promise<Tenant> {
    return this.store.createTenant({ name });
  }

  admin(tenant: Tenant, extra: { ownerAdminId?: string; permissions?: string[]; features?: string[] } = {}): Promise<Admin> {
    return this.store.createAdmin({ tenantId: tenant.id, wallet: randomWallet(), displayName: 'Someone', ...extra });
  }
}

/** 0x + 40 hex in mixed case, as wallets hand out checksummed addresses. */
export function randomWallet(): string {
  const hex = randomBytes(20).toString('hex');
  return `0x${[...hex].map((c) => (Math.random() < 0.5 ? c.toUpperCase() : c)).join('')}`;
}

export const nonce = (): string => `n${randomBytes(10).toString('hex')}`;
export const hash = (): string => `0x${randomBytes(32).toString('hex')}`;
export const ID_SUFFIX = '[0-9a-z]{26}';
