import { type Kysely, sql, type Transaction } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import { adminNotFound, walletTaken } from '../errors/common-errors.ts';
import type { Admin, AdminChanges, AdminWallet } from '../model/admins.ts';
import { requireAdmin } from './admin-records.ts';
import { ADMIN_WALLET_UNIQUE, violates } from './database-errors.ts';
import { inTransaction } from './in-transaction.ts';
import { normalizeWallet, requireEach, requireName, requirePermission, requireStatus } from './input-validation.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

/**
 * The self-service changes of admins (model/admins.ts AdminChanges). Each runs in one transaction
 * that first writes the tenant's row: on PostgreSQL that row lock makes every change of one
 * tenant's admins wait for the one before (SQLite has one writer anyway), so the check that the
 * tenant keeps an owner sees every change made before it — two owners suspending each other at
 * once cannot both succeed.
 */
export function adminChanges(db: Db, now: () => number): AdminChanges {
  return {
    async holdTenant(tenantId) {
      await db.updateTable('tenants').set({ name: sql`name` }).where('id', '=', tenantId).execute();
    },

    async updateAdmin(id, change, ifRevision) {
      const at = now();
      const displayName = change.displayName === undefined ? undefined : requireName(change.displayName, 'Display name');
      const permissions = change.permissions === undefined ? undefined : requireEach([...change.permissions], requirePermission);
      const status = change.status === undefined ? undefined : requireStatus(change.status);
      await inTenant(db, id, ifRevision, async (trx, admin) => {
        if (admin.removedAt !== null) throw adminRemoved(id);
        await trx
          .updateTable('admins')
          .set({
            updated_at: at,
            revision: sql`revision + 1`,
            ...(displayName === undefined ? {} : { display_name: displayName }),
            ...(status === undefined ? {} : { status }),
            ...(change.ownerAdminId === undefined ? {} : { owner_admin_id: change.ownerAdminId }),
            // A suspension ends every message signed until then: reactivating must not bring them back.
            ...(status === 'SUSPENDED' && admin.status !== 'SUSPENDED' ? { signed_out_before: cut(at) } : {}),
          })
          .where('id', '=', id)
          .execute();
        if (permissions !== undefined) {
          await trx.deleteFrom('admin_permissions').where('admin_id', '=', id).execute();
          if (permissions.length > 0)
            await trx
              .insertInto('admin_permissions')
              .values([...new Set(permissions)].map((permission) => ({ admin_id: id, permission })))
              .execute();
        }
        await requireOwnerLeft(trx, admin.tenantId);
      });
      return requireAdmin(db, id);
    },

    async removeAdmin(id, successorId, ifRevision) {
      const at = now();
      let moved: string[] = [];
      await inTenant(db, id, ifRevision, async (trx, admin) => {
        if (admin.removedAt !== null) throw adminRemoved(id);
        const below = await trx.selectFrom('admins').select('id').where('owner_admin_id', '=', id).execute();
        moved = below.map((row) => row.id).sort();
        if (moved.length > 0) {
          await trx
            .updateTable('admins')
            .set({ owner_admin_id: successorId, updated_at: at, revision: sql`revision + 1` })
            .where('owner_admin_id', '=', id)
            .execute();
        }
        await trx.deleteFrom('admin_wallets').where('admin_id', '=', id).execute();
        await trx.deleteFrom('channel_admins').where('admin_id', '=', id).execute();
        await trx
          .updateTable('admins')
          .set({
            removed_at: at,
            status: 'SUSPENDED',
            // No address can equal it, so the wallet is free to be given again; the audit event keeps it.
            wallet: `removed:${id}`,
            signed_out_before: cut(at),
            updated_at: at,
            revision: sql`revision + 1`,
          })
          .where('id', '=', id)
          .execute();
        await requireOwnerLeft(trx, admin.tenantId);
      });
      return { admin: await requireAdmin(db, id), moved };
    },

    async listAdminWallets(id) {
      const admin = await requireAdmin(db, id);
      const rows = await db.selectFrom('admin_wallets').selectAll().where('admin_id', '=', admin.id).execute();
      return rows.map(toWallet).sort((a, b) => a.addedAt - b.addedAt || (a.address < b.address ? -1 : 1));
    },

    async addAdminWallet(id, wallet) {
      const address = normalizeWallet(wallet);
      const at = now();
      try {
        await inTenant(db, id, undefined, async (trx, admin) => {
          if (admin.removedAt !== null) throw adminRemoved(id);
          await trx
            .insertInto('admin_wallets')
            .values({ wallet: address, admin_id: id, tenant_id: admin.tenantId, added_at: at })
            .execute();
          await trx.updateTable('admins').set({ updated_at: at, revision: sql`revision + 1` }).where('id', '=', id).execute();
        });
      } catch (error) {
        throw violates(error, ADMIN_WALLET_UNIQUE) ? walletTaken(address) : error;
      }
      return { address, addedAt: at };
    },

    async removeAdminWallet(id, wallet) {
      const address = normalizeWallet(wallet);
      const at = now();
      await inTenant(db, id, undefined, async (trx, admin) => {
        const removed = await trx.deleteFrom('admin_wallets').where('admin_id', '=', id).where('wallet', '=', address).executeTakeFirst();
        if (removed.numDeletedRows === 0n) throw new AppError('WALLET_NOT_FOUND', `Admin ${id} has no wallet ${address}`);
        const left = await trx
          .selectFrom('admin_wallets')
          .select('wallet')
          .where('admin_id', '=', id)
          .orderBy('added_at')
          .orderBy('wallet')
          .executeTakeFirst();
        if (left === undefined) throw new AppError('LAST_WALLET', `Wallet ${address} is the last wallet of admin ${id}; add another first`);
        // admins.wallet names a wallet the admin still holds: the oldest one left when it was this one.
        await trx
          .updateTable('admins')
          .set({ updated_at: at, revision: sql`revision + 1`, ...(admin.wallet === address ? { wallet: left.wallet } : {}) })
          .where('id', '=', id)
          .execute();
        await requireOwnerLeft(trx, admin.tenantId);
      });
    },
  };
}

/** Runs `work` on the admin in a transaction holding its tenant's admins still (see adminChanges). */
async function inTenant(
  db: Db,
  id: string,
  ifRevision: number | undefined,
  work: (trx: Trx, admin: Admin) => Promise<void>,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    const row = await trx.selectFrom('admins').select(['tenant_id']).where('id', '=', id).executeTakeFirst();
    if (row === undefined) throw adminNotFound(id);
    await trx.updateTable('tenants').set({ name: sql`name` }).where('id', '=', row.tenant_id).execute();
    const admin = await requireAdmin(trx, id);
    if (ifRevision !== undefined && admin.revision !== ifRevision) {
      throw new AppError('PRECONDITION_FAILED', `Admin ${id} was changed since that ETag was read; read it again`);
    }
    await work(trx, admin);
  });
}

/** LAST_OWNER, rolling the change back, when the tenant has no active owner holding a wallet left. */
async function requireOwnerLeft(trx: Trx, tenantId: string): Promise<void> {
  const found = await trx
    .selectFrom('admins')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('owner_admin_id', 'is', null)
    .where('status', '=', 'ACTIVE')
    .where('removed_at', 'is', null)
    .where((eb) => eb.exists(eb.selectFrom('admin_wallets').select('wallet').whereRef('admin_wallets.admin_id', '=', 'admins.id')))
    .limit(1)
    .executeTakeFirst();
  if (found === undefined) {
    throw new AppError('LAST_OWNER', 'The tenant would be left without an active owner holding a wallet; make another owner first');
  }
}

function adminRemoved(id: string): AppError {
  return new AppError('ADMIN_REMOVED', `Admin ${id} was removed; its record is kept for the audit log only`);
}

function cut(at: number) {
  return sql<number>`case when signed_out_before is null or signed_out_before < ${at} then ${at} else signed_out_before end`;
}

const toWallet = (row: { wallet: string; added_at: number }): AdminWallet => ({ address: row.wallet, addedAt: Number(row.added_at) });
