/** What an admin may do, by name. */

/**
 * Every permission the service checks (each route names the one it needs). The store keeps no
 * other: a misspelt one would grant nothing and say nothing. An owner admin holds them all.
 */
export const ALL_PERMISSIONS = [
  'files:read',
  'files:write',
  'files:restore',
  'backups:create',
  'audit:read',
  // Tenant self-service (docs/administration.md): read the tenant's admins, manage them, manage channels.
  'admins:read',
  'admins:manage',
  'channels:manage',
  // Locked backups (docs/backup-locks.md): delete a backup; lock one or put it under legal hold (lifting either needs an owner).
  'backups:delete',
  'backups:lock',
  // Events out (docs/events.md): make, change and delete the tenant's webhooks, and read their delivery logs.
  'webhooks:manage',
  // A tenant's own off-site copy (docs/offsite.md): set, change and remove where the tenant's copy goes.
  'offsite:manage',
] as const;

export type Permission = (typeof ALL_PERMISSIONS)[number];
