/** Every permission the service checks. An owner admin (one with no owner) holds them all. */
export const ALL_PERMISSIONS = ['files:read', 'files:write', 'files:restore', 'backups:create', 'audit:read'] as const;
export type Permission = (typeof ALL_PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (ALL_PERMISSIONS as readonly string[]).includes(value);
}

/** What an admin may do: an owner admin holds every permission whatever was granted, others what was granted. */
export function effectivePermissions(admin: { ownerAdminId: string | null; permissions: readonly string[] }): string[] {
  const permissions = new Set<string>(admin.permissions);
  if (admin.ownerAdminId === null) for (const p of ALL_PERMISSIONS) permissions.add(p);
  return [...permissions].sort();
}
