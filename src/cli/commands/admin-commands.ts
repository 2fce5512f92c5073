import { AppError } from '../../errors/app-error.ts';
import { tenantNotFound } from '../../errors/common-errors.ts';
import { ADMIN_STATUSES, type Admin, type AdminStatus } from '../../store/types.ts';
import type { Command } from '../command.ts';
import { listOption, optionalString, stringOption } from '../command.ts';

function describe(admin: Admin): string {
  const owner = admin.ownerAdminId ? `owner ${admin.ownerAdminId}` : 'owner admin';
  const permissions = admin.permissions.length > 0 ? admin.permissions.join(', ') : 'none';
  return `${admin.id}  ${admin.wallet}  ${admin.status}  "${admin.displayName}"  (${owner}; permissions: ${permissions})`;
}

const adminOption = { admin: { type: 'string', required: true, description: 'Admin id (adm_…)' } } as const;
const permissionOption = { permission: { type: 'string', required: true, description: 'Permission, e.g. files:restore' } } as const;

export const adminCommands: Command[] = [
  {
    words: ['admin', 'create'],
    summary: 'Create an admin for a wallet; without --owner it is an owner admin holding every permission',
    options: {
      tenant: { type: 'string', required: true, description: 'Tenant id (t_…)' },
      wallet: { type: 'string', required: true, description: 'Wallet address, 0x + 40 hex, any letter case' },
      name: { type: 'string', required: true, description: 'Display name' },
      owner: { type: 'string', description: 'Id of the owning admin; omit for an owner admin' },
      permission: { type: 'string', multiple: true, description: 'Permission to grant (repeatable)' },
      feature: { type: 'string', multiple: true, description: 'Feature of this admin (repeatable)' },
    },
    async run({ values, store }) {
      const admin = await (await store()).createAdmin({
        tenantId: stringOption(values, 'tenant'),
        wallet: stringOption(values, 'wallet'),
        displayName: stringOption(values, 'name'),
        ownerAdminId: optionalString(values, 'owner') ?? null,
        permissions: listOption(values, 'permission'),
        features: listOption(values, 'feature'),
      });
      return { json: { ...admin }, text: `Created admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'set-status'],
    summary: 'Suspend or reactivate an admin',
    options: { ...adminOption, status: { type: 'string', required: true, description: 'ACTIVE or SUSPENDED' } },
    async run({ values, store }) {
      const status = stringOption(values, 'status').toUpperCase();
      if (!ADMIN_STATUSES.includes(status as AdminStatus)) {
        throw new AppError(
          'VALIDATION_FAILED',
          `--status must be ${ADMIN_STATUSES.join(' or ')} (got "${stringOption(values, 'status')}")`,
        );
      }
      const admin = await (await store()).setAdminStatus(stringOption(values, 'admin'), status as AdminStatus);
      return { json: { ...admin }, text: `Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'grant'],
    summary: 'Grant a permission',
    options: { ...adminOption, ...permissionOption },
    async run({ values, store }) {
      const admin = await (await store()).grantPermission(stringOption(values, 'admin'), stringOption(values, 'permission'));
      return { json: { ...admin }, text: `Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'revoke'],
    summary: 'Revoke a permission',
    options: { ...adminOption, ...permissionOption },
    async run({ values, store }) {
      const admin = await (await store()).revokePermission(stringOption(values, 'admin'), stringOption(values, 'permission'));
      return { json: { ...admin }, text: `Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'logout'],
    summary: 'End every message the admin has signed, on every instance (log out everywhere); new sign-ins work as before',
    options: adminOption,
    async run({ values, store }) {
      const admin = await (await store()).signOutEverywhere(stringOption(values, 'admin'));
      const since = new Date(admin.signedOutBefore!).toISOString();
      return {
        json: { ...admin },
        text: `Admin ${describe(admin)}: every message signed before ${since} is logged out (running servers within AUTH_STATE_REFRESH seconds)`,
      };
    },
  },
  {
    words: ['admin', 'set-wallet'],
    summary: "Move an admin to another wallet (the old wallet's signatures stop working)",
    options: { ...adminOption, wallet: { type: 'string', required: true, description: 'New wallet address' } },
    async run({ values, store }) {
      const admin = await (await store()).setAdminWallet(stringOption(values, 'admin'), stringOption(values, 'wallet'));
      return { json: { ...admin }, text: `Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'list'],
    summary: 'List the admins of a tenant',
    options: { tenant: { type: 'string', required: true, description: 'Tenant id (t_…)' } },
    async run({ values, store }) {
      const tenantId = stringOption(values, 'tenant');
      const s = await store();
      if (!(await s.getTenant(tenantId))) throw tenantNotFound(tenantId);
      const admins = await s.listAdmins(tenantId);
      return { json: { items: admins }, text: admins.length > 0 ? admins.map(describe).join('\n') : 'No admins' };
    },
  },
];
