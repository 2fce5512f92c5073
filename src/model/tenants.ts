import type { AdminRecords } from './admins.ts';
import type { ChannelRecords } from './channels.ts';
import type { QuotaLimits } from './quotas.ts';

/** Tenants, and the directory of their admins and channels that the operator's CLI and the demo seed manage. */

export interface Tenant {
  id: string; // t_…
  name: string;
  features: string[];
  createdAt: number;
  /** Its quota (docs/quotas.md), set by the operator. */
  quota: QuotaLimits;
}

export interface TenantRecords {
  /** True when no tenant exists yet (first start). */
  isEmpty(): Promise<boolean>;
  createTenant(input: { name: string }): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | undefined>;
  /** Every tenant, oldest first (the operator's overview; tenants are few). */
  listTenants(): Promise<Tenant[]>;
  addTenantFeature(tenantId: string, feature: string): Promise<Tenant>;
}

/** Tenants, their admins and their channels: what the CLI and the demo seed manage. */
export interface TenantDirectory extends TenantRecords, AdminRecords, ChannelRecords {}

/**
 * Where the demo data a first start creates stands: none begun on this database, begun by a start
 * that has not finished it (stopped midway), or complete.
 */
export type DemoSeedingState = 'none' | 'begun' | 'complete';

export interface DemoSeedingRecords {
  demoSeeding(): Promise<DemoSeedingState>;
  /** Records that the demo is being seeded, when no tenant exists and no seeding was begun: true when this call did. */
  beginDemoSeeding(): Promise<boolean>;
  /** Records that every step of the demo is done: later starts seed nothing, whatever becomes of its data. */
  completeDemoSeeding(): Promise<void>;
}
