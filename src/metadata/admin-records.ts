import { type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import { adminNotFound, walletTaken } from '../errors/common-errors.ts';
import type { Admin, AdminRecords, AdminStatus } from '../model/admins.ts';
import { newAdminId } from '../model/ids.ts';
import { ADMIN_WALLET_UNIQUE, violates, WALLET_UNIQUE } from './database-errors.ts';
import { inTransaction } from './in-transaction.ts';
import { normalizeWallet, requireEach, requireFeature, requireName, requirePermission, requireStatus } from './input-validation.ts';
import type { AdminsTable, Database } from './schema.ts';
import { requireTenant } from './tenant-records.ts';

type Db = Kysely<Database>;
type AdminRow = Selectable<AdminsTable>;

/** Admins, their permissions and features. */
export function adminRecords(db: Db, now: () => number): AdminRecords {
  return {
    async createAdmin(input) {
      const valid = {
        tenantId: input.tenantId,
        wallet: normalizeWallet(input.wallet),
        displayName: requireName(input.displayName, 'Display name'),
        ownerAdminId: input.ownerAdminId ?? null,
        permissions: requireEach(input.permissions, requirePermission),
        features: requireEach(input.features, requireFeature),
      };
      return insertAdmin(db, valid, now());
    },

    async getAdmin(id) {
      return selectAdmin(db, { id });
    },

    async findAdminByWallet(wallet) {
      return selectAdmin(db, { wallet: normalizeWallet(wallet) });
    },

    async adminDisplayNames(tenantId, ids) {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('admins')
        .select(['id', 'display_name'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids)
        .execute();
      return new Map(rows.map((row) => [row.id, row.display_name]));
    },

    async listAdmins(tenantId) {
      const rows = await db
        .selectFrom('admins')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      if (rows.length === 0) {
        await requireTenant(db, tenantId);
        return [];
      }
      const attributes = await selectAttributes(db, { tenantId });
      return rows.map((row) => toAdmin(row, attributes.get(row.id)));
    },

    // A suspension and a wallet rotation end every message signed until then: reactivating the
    // admin, or moving the wallet back, must not bring them back. (Messages are compared with it by
    // the latest instant they may have been signed: see MessageClaims.signedBy.)
    async setAdminStatus(id, status) {
      const valid = requireStatus(status);
      const at = now();
      return updateAdmin(db, id, valid === 'SUSPENDED' ? { status: valid, signed_out_before: cutAt(at) } : { status: valid }, at);
    },

    // The operator's rotation: the admin's first wallet replaced by another, its other wallets kept.
    async setAdminWallet(id, wallet) {
      const valid = normalizeWallet(wallet);
      const at = now();
      const old = await requireAdmin(db, id);
      try {
        await inTransaction(db, async (trx) => {
          await trx.deleteFrom('admin_wallets').where('admin_id', '=', id).where('wallet', '=', old.wallet).execute();
          await trx.insertInto('admin_wallets').values({ wallet: valid, admin_id: id, tenant_id: old.tenantId, added_at: at }).execute();
          await trx
            .updateTable('admins')
            .set({ wallet: valid, signed_out_before: cutAt(at), updated_at: at, revision: sql`revision + 1` })
            .where('id', '=', id)
            .execute();
        });
      } catch (error) {
        throw violates(error, WALLET_UNIQUE) || violates(error, ADMIN_WALLET_UNIQUE) ? walletTaken(valid) : error;
      }
      return requireAdmin(db, id);
    },

    async signOutEverywhere(id) {
      const at = now();
      return updateAdmin(db, id, { signed_out_before: cutAt(at) }, at);
    },

    async grantPermission(id, permission) {
      return changePermission(db, id, requirePermission(permission), true, now());
    },

    // Any permission the admin holds may go, one stored before permissions were checked included;
    // one it does not hold must be a permission (a misspelt revoke would otherwise change nothing, silently).
    async revokePermission(id, permission) {
      return changePermission(db, id, permission, false, now());
    },
  };
}

/** The tenant of an admin, or undefined when there is no such admin. */
export async function tenantOfAdmin(db: Db, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('admins').select('tenant_id').where('id', '=', id).executeTakeFirst();
  return row?.tenant_id;
}

/** What an admin has beside its row: its permissions, features, wallets (oldest first) and channels. */
export interface AdminAttributes {
  permissions: string[];
  features: string[];
  wallets: string[];
  channelIds: string[];
}

export function toAdmin(row: AdminRow, attributes: Partial<AdminAttributes> | undefined): Admin {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    wallet: row.wallet,
    wallets: attributes?.wallets ?? [],
    channelIds: attributes?.channelIds ?? [],
    displayName: row.display_name,
    ownerAdminId: row.owner_admin_id,
    status: row.status,
    permissions: attributes?.permissions ?? [],
    features: attributes?.features ?? [],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    signedOutBefore: row.signed_out_before === null ? null : Number(row.signed_out_before),
    removedAt: row.removed_at === null ? null : Number(row.removed_at),
    revision: Number(row.revision),
  };
}

interface ValidAdmin {
  tenantId: string;
  wallet: string;
  displayName: string;
  ownerAdminId: string | null;
  permissions: string[];
  features: string[];
}

async function insertAdmin(db: Db, input: ValidAdmin, now: number): Promise<Admin> {
  await requireTenant(db, input.tenantId);
  if (input.ownerAdminId !== null) await requireOwnerInTenant(db, input.ownerAdminId, input.tenantId);
  const id = newAdminId();
  try {
    await inTransaction(db, async (trx) => {
      await trx
        .insertInto('admins')
        .values({
          id,
          tenant_id: input.tenantId,
          wallet: input.wallet,
          display_name: input.displayName,
          owner_admin_id: input.ownerAdminId,
          status: 'ACTIVE',
          created_at: now,
          updated_at: now,
        })
        .execute();
      await trx
        .insertInto('admin_wallets')
        .values({ wallet: input.wallet, admin_id: id, tenant_id: input.tenantId, added_at: now })
        .execute();
      if (input.permissions.length > 0) {
        await trx
          .insertInto('admin_permissions')
          .values(input.permissions.map((permission) => ({ admin_id: id, permission })))
          .execute();
      }
      if (input.features.length > 0) {
        await trx
          .insertInto('admin_features')
          .values(input.features.map((feature) => ({ admin_id: id, feature })))
          .execute();
      }
    });
  } catch (error) {
    throw violates(error, WALLET_UNIQUE) || violates(error, ADMIN_WALLET_UNIQUE) ? walletTaken(input.wallet) : error;
  }
  return {
    id,
    tenantId: input.tenantId,
    wallet: input.wallet,
    wallets: [input.wallet],
    channelIds: [],
    removedAt: null,
    revision: 1,
    displayName: input.displayName,
    ownerAdminId: input.ownerAdminId,
    status: 'ACTIVE',
    permissions: [...input.permissions].sort(),
    features: [...input.features].sort(),
    createdAt: now,
    updatedAt: now,
    signedOutBefore: null,
  };
}

export async function selectAdmin(db: Db, by: { id: string } | { wallet: string }): Promise<Admin | undefined> {
  const row =
    'id' in by
      ? await db.selectFrom('admins').selectAll().where('id', '=', by.id).executeTakeFirst()
      : await adminRowByWallet(db, by.wallet);
  if (!row) return undefined;
  const attributes = await selectAttributes(db, { adminId: row.id });
  return toAdmin(row, attributes.get(row.id));
}

/**
 * The admin holding `wallet` (lowercase), by any of its wallets. Its first wallet (admins.wallet, which
 * is always one of its admin_wallets) is one unique-index lookup, the common case on every sign-in;
 * another wallet is a second lookup by admin_wallets' key. (A join of the two made the whole principal
 * lookup about twice as slow on SQLite, measured.)
 */
export async function adminRowByWallet(db: Db, wallet: string): Promise<AdminRow | undefined> {
  const first = await db.selectFrom('admins').selectAll().where('wallet', '=', wallet).executeTakeFirst();
  if (first !== undefined) return first;
  const other = await db.selectFrom('admin_wallets').select('admin_id').where('wallet', '=', wallet).executeTakeFirst();
  return other && db.selectFrom('admins').selectAll().where('id', '=', other.admin_id).executeTakeFirst();
}

export async function requireAdmin(db: Db, id: string): Promise<Admin> {
  const admin = await selectAdmin(db, { id });
  if (!admin) throw adminNotFound(id);
  return admin;
}

type AdminChange = { status?: AdminStatus; signed_out_before?: RawBuilder<number> };

/**
 * The admin's cut moved to `at`, never back: the cut is taken on the clock of whatever machine ends
 * the sessions (an instance, an operator's CLI), and a later sign-out from one whose clock runs
 * behind must not bring back the messages an earlier one ended. Decided in the UPDATE itself, so
 * that two sign-outs at once cannot both read the old cut.
 */
function cutAt(at: number): RawBuilder<number> {
  return sql<number>`case when signed_out_before is null or signed_out_before < ${at} then ${at} else signed_out_before end`;
}

async function updateAdmin(db: Db, id: string, change: AdminChange, now: number): Promise<Admin> {
  const result = await db
    .updateTable('admins')
    .set({ ...change, updated_at: now, revision: sql`revision + 1` })
    .where('id', '=', id)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw adminNotFound(id);
  return requireAdmin(db, id);
}

/** Grants or revokes one permission; a grant already held or a revoke of one not held changes nothing. */
async function changePermission(db: Db, id: string, permission: string, grant: boolean, now: number): Promise<Admin> {
  await inTransaction(db, async (trx) => {
    // Touching the admin first proves it exists and, on PostgreSQL, orders concurrent changes to it.
    const touched = await trx
      .updateTable('admins')
      .set({ updated_at: now, revision: sql`revision + 1` })
      .where('id', '=', id)
      .executeTakeFirst();
    if (touched.numUpdatedRows === 0n) throw adminNotFound(id);
    if (grant) {
      await trx
        .insertInto('admin_permissions')
        .values({ admin_id: id, permission })
        .onConflict((oc) => oc.columns(['admin_id', 'permission']).doNothing())
        .execute();
    } else {
      const removed = await trx
        .deleteFrom('admin_permissions')
        .where('admin_id', '=', id)
        .where('permission', '=', permission)
        .executeTakeFirst();
      if (removed.numDeletedRows === 0n) requirePermission(permission);
    }
  });
  return requireAdmin(db, id);
}

async function requireOwnerInTenant(db: Db, ownerAdminId: string, tenantId: string): Promise<void> {
  const ownerTenant = await tenantOfAdmin(db, ownerAdminId);
  if (ownerTenant === undefined) throw new AppError('ADMIN_NOT_FOUND', `Owner admin ${ownerAdminId} does not exist`);
  if (ownerTenant !== tenantId) {
    throw new AppError('VALIDATION_FAILED', `Owner admin ${ownerAdminId} belongs to another tenant than ${tenantId}`);
  }
}

/** Permissions, features, wallets and channels of one admin or of a whole tenant's admins, in one query. */
export async function selectAttributes(db: Db, scope: { adminId: string } | { tenantId: string }): Promise<Map<string, AdminAttributes>> {
  const [column, value] = 'adminId' in scope ? (['admins.id', scope.adminId] as const) : (['admins.tenant_id', scope.tenantId] as const);
  const rows = await db
    .selectFrom('admin_permissions')
    .innerJoin('admins', 'admins.id', 'admin_permissions.admin_id')
    .select([
      sql.lit<string>('permission').as('kind'),
      'admin_permissions.admin_id as admin_id',
      'admin_permissions.permission as value',
      sql.lit<number>(0).as('at'),
    ])
    .where(column, '=', value)
    .unionAll(
      db
        .selectFrom('admin_features')
        .innerJoin('admins', 'admins.id', 'admin_features.admin_id')
        .select([
          sql.lit<string>('feature').as('kind'),
          'admin_features.admin_id as admin_id',
          'admin_features.feature as value',
          sql.lit<number>(0).as('at'),
        ])
        .where(column, '=', value),
    )
    .unionAll(
      db
        .selectFrom('admin_wallets')
        .innerJoin('admins', 'admins.id', 'admin_wallets.admin_id')
        .select([
          sql.lit<string>('wallet').as('kind'),
          'admin_wallets.admin_id as admin_id',
          'admin_wallets.wallet as value',
          'admin_wallets.added_at as at',
        ])
        .where(column, '=', value),
    )
    .unionAll(
      db
        .selectFrom('channel_admins')
        .innerJoin('admins', 'admins.id', 'channel_admins.admin_id')
        .select([
          sql.lit<string>('channel').as('kind'),
          'channel_admins.admin_id as admin_id',
          'channel_admins.channel_id as value',
          sql.lit<number>(0).as('at'),
        ])
        .where(column, '=', value),
    )
    .execute();
  const byAdmin = new Map<string, AdminAttributes>();
  const walletTimes = new Map<string, number>();
  for (const row of rows) {
    let entry = byAdmin.get(row.admin_id);
    if (!entry) {
      entry = { permissions: [], features: [], wallets: [], channelIds: [] };
      byAdmin.set(row.admin_id, entry);
    }
    if (row.kind === 'wallet') walletTimes.set(row.value, Number(row.at));
    const list = { permission: entry.permissions, feature: entry.features, wallet: entry.wallets, channel: entry.channelIds }[row.kind];
    list?.push(row.value);
  }
  // Sorted here rather than in SQL: the two engines' collations order text differently.
  for (const entry of byAdmin.values()) {
    entry.permissions.sort();
    entry.features.sort();
    entry.channelIds.sort();
    entry.wallets.sort((a, b) => walletTimes.get(a)! - walletTimes.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
  }
  return byAdmin;
}
