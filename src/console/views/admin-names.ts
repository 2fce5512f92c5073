import { useLoad } from '../ui/use-load.ts';
import type { ViewContext } from './context.ts';

/** As many admins as one page holds: a tenant's approvers are far fewer. */
const ADMINS_LISTED = 1000;

/**
 * Admins' display names by id, for a page that names approvers. An admin the caller may not list (a
 * sub-admin lists only those below it) keeps their id; so does everyone without admins:read.
 */
export function useAdminNames(ctx: ViewContext): (id: string) => string | null {
  const me = ctx.signedIn.me.principal;
  const admins = useLoad(
    async () => (ctx.can('admins:read') ? (await ctx.client.listAdmins({ limit: ADMINS_LISTED })).items : []),
    'admin-names',
  );
  return (id) => (id === me.id ? me.displayName : (admins.data?.find((admin) => admin.id === id)?.displayName ?? null));
}
