import type { Kysely } from 'kysely';
import { tenantNotFound } from '../errors/common-errors.ts';
import { newTenantId } from '../model/ids.ts';
import type { Tenant, TenantRecords } from '../model/tenants.ts';
import { requireFeature, requireName } from './input-validation.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Tenants and their features. Every method is async, so a refused input arrives as a rejection. */
export function tenantRecords(db: Db, now: () => number): TenantRecords {
  return {
    async isEmpty() {
      const row = await db.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
      return row === undefined;
    },

    async createTenant(input) {
      const name = requireName(input.name, 'Tenant name');
      const id = newTenantId();
      const createdAt = now();
      await db.insertInto('tenants').values({ id, name, created_at: createdAt }).execute();
      return { id, name, features: [], createdAt, quota: { maxBytes: null, maxFiles: null } };
    },

    async getTenant(id) {
      return selectTenant(db, id);
    },

    async listTenants() {
      const rows = await db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id').execute();
      const features = await db.selectFrom('tenant_features').select(['tenant_id', 'feature']).execute();
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        features: features
          .filter((f) => f.tenant_id === row.id)
          .map((f) => f.feature)
          .sort(),
        createdAt: row.created_at,
        quota: quotaOf(row),
      }));
    },

    async addTenantFeature(tenantId, feature) {
      const label = requireFeature(feature);
      await requireTenant(db, tenantId);
      await db
        .insertInto('tenant_features')
        .values({ tenant_id: tenantId, feature: label })
        .onConflict((oc) => oc.columns(['tenant_id', 'feature']).doNothing())
        .execute();
      const tenant = await selectTenant(db, tenantId);
      if (!tenant) throw tenantNotFound(tenantId);
      return tenant;
    },
  };
}

/** For the admins and channels a tenant holds: refuses an unknown tenant with TENANT_NOT_FOUND. */
export async function requireTenant(db: Db, id: string): Promise<void> {
  const row = await db.selectFrom('tenants').select('id').where('id', '=', id).executeTakeFirst();
  if (!row) throw tenantNotFound(id);
}

async function selectTenant(db: Db, id: string): Promise<Tenant | undefined> {
  const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const features = await db.selectFrom('tenant_features').select('feature').where('tenant_id', '=', id).execute();
  return { id: row.id, name: row.name, features: features.map((f) => f.feature).sort(), createdAt: row.created_at, quota: quotaOf(row) };
}

// bigint columns read back as strings on PostgreSQL.
const quotaOf = (row: { quota_max_bytes: number | null; quota_max_files: number | null }) => ({
  maxBytes: row.quota_max_bytes === null ? null : Number(row.quota_max_bytes),
  maxFiles: row.quota_max_files === null ? null : Number(row.quota_max_files),
});
