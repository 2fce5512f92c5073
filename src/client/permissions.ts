import type { Permission } from './types.ts';

/**
 * Every permission the service grants, in its own order, for a page to offer them (the console's
 * permission grids). test/client/client-types.unit.test.ts holds it equal to the service's list.
 */
export const PERMISSIONS: readonly Permission[] = [
  'files:read',
  'files:write',
  'files:restore',
  'backups:create',
  'audit:read',
  'admins:read',
  'admins:manage',
  'channels:manage',
  'backups:delete',
  'backups:lock',
  'webhooks:manage',
  'offsite:manage',
];
