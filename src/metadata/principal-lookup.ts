import { type Kysely, sql } from 'kysely';
import type { PrincipalLookup } from '../model/admins.ts';
import { adminRowByWallet, toAdmin } from './admin-records.ts';
import { normalizeWallet } from './input-validation.ts';
import type { Database } from './schema.ts';

/**
 * Runs on every authenticated request, so it is two indexed queries whatever the admin holds:
 * the admin by wallet (primary key of admin_wallets, then admins'), then its four lists in one union, each arm a primary-key
 * or index prefix lookup.
 */
export function principalLookup(db: Kysely<Database>): PrincipalLookup {
  return {
    async loadPrincipalByWallet(wallet) {
      const row = await adminRowByWallet(db, normalizeWallet(wallet));
      if (!row) return undefined;
      const lists = await db
        .selectFrom('admin_permissions')
        .select([sql.lit<string>('permission').as('kind'), 'permission as value'])
        .where('admin_id', '=', row.id)
        .unionAll(
          db
            .selectFrom('admin_features')
            .select([sql.lit<string>('feature').as('kind'), 'feature as value'])
            .where('admin_id', '=', row.id),
        )
        .unionAll(
          db
            .selectFrom('tenant_features')
            .select([sql.lit<string>('tenant-feature').as('kind'), 'feature as value'])
            .where('tenant_id', '=', row.tenant_id),
        )
        .unionAll(
          db
            .selectFrom('admin_wallets')
            .select([sql.lit<string>('wallet').as('kind'), 'wallet as value'])
            .where('admin_id', '=', row.id),
        )
        .unionAll(
          db
            .selectFrom('channel_admins')
            .select([sql.lit<string>('channel').as('kind'), 'channel_id as value'])
            .where('admin_id', '=', row.id),
        )
        .execute();
      const valuesOf = (kind: string) =>
        lists
          .filter((entry) => entry.kind === kind)
          .map((entry) => entry.value)
          .sort();
      return {
        admin: toAdmin(row, {
          permissions: valuesOf('permission'),
          features: valuesOf('feature'),
          wallets: walletsInOrder(row.wallet, valuesOf('wallet')),
          channelIds: valuesOf('channel'),
        }),
        tenantFeatures: valuesOf('tenant-feature'),
        channelIds: valuesOf('channel'),
      };
    },
  };
}

/** The admin's wallets as its record lists them: its first wallet, then the others (sorted here; their ages are not read on this path). */
function walletsInOrder(first: string, wallets: string[]): string[] {
  return wallets.includes(first) ? [first, ...wallets.filter((w) => w !== first)] : wallets;
}
