/** Every permission the service checks. An owner admin (one with no owner) holds them all. */
export const ALL_PERMISSIONS = ['files:read', 'files:write', 'files:restore', 'backups:create', 'audit:read'] as const;
export type Permission = (typeof ALL_PERMISSIONS)[number];
