import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import { newTenantId } from './ids.ts';
import type { Database } from './schema.ts';
import type { Tenant } from './types.ts';

type Db = Kysely<Database>;

export async function insertTenant(db: Db, name: string, now: number): Promise<Tenant> {
  const id = newTenantId();
  await db.insertInto('tenants').values({ id, name, created_at: now }).execute();
  return { id, name, features: [], createdAt: now };
}

export async function selectTenant(db: Db, id: string): Promise<Tenant | undefined> {
  const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const features = await db.selectFrom('tenant_features').select('feature').where('tenant_id', '=', id).execute();
  return { id: row.id, name: row.name, features: features.map((f) => f.feature).sort(), createdAt: row.created_at };
}

export async function requireTenant(db: Db, id: string): Promise<void> {
  const row = await db.selectFrom('tenants').select('id').where('id', '=', id).executeTakeFirst();
  if (!row) throw tenantNotFound(id);
}

export async function insertTenantFeature(db: Db, tenantId: string, feature: string): Promise<Tenant> {
  await requireTenant(db, tenantId);
  await db
    .insertInto('tenant_features')
    .values({ tenant_id: tenantId, feature })
    .onConflict((oc) => oc.columns(['tenant_id', 'feature']).doNothing())
    .execute();
  const tenant = await selectTenant(db, tenantId);
  if (!tenant) throw tenantNotFound(tenantId);
  return tenant;
}

export async function hasNoTenant(db: Db): Promise<boolean> {
  const row = await db.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

export function tenantNotFound(id: string): AppError {
  return new AppError('TENANT_NOT_FOUND', `Tenant ${id} does not exist`);
}
