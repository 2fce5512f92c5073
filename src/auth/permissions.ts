import { ALL_PERMISSIONS } from '../model/permissions.ts';

/** What an admin may do: an owner admin holds every permission whatever was granted, others what was granted. */
export function effectivePermissions(admin: { ownerAdminId: string | null; permissions: readonly string[] }): string[] {
  const permissions = new Set<string>(admin.permissions);
  if (admin.ownerAdminId === null) for (const p of ALL_PERMISSIONS) permissions.add(p);
  return [...permissions].sort();
}
