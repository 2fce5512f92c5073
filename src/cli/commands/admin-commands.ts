import { effectivePermissions } from '../../auth/permissions.ts';
import { AppError } from '../../errors/app-error.ts';
import { tenantNotFound } from '../../errors/common-errors.ts';
import { ADMIN_STATUSES, type Admin, type AdminStatus } from '../../model/admins.ts';
import { ALL_PERMISSIONS } from '../../model/permissions.ts';
import { formatRfc3339 } from '../../time/rfc3339.ts';
import type { Command } from '../command.ts';
import { listOption, optionalString, stringOption } from '../command.ts';
import { pageOptions } from '../paging.ts';
import { adminJson } from '../record-views.ts';
import { type TerminalText, terminalLines, terminalText } from '../terminal-text.ts';
import {
  changePermissionRemotely,
  createAdminRemotely,
  listAdminsRemotely,
  removeAdminRemotely,
  setStatusRemotely,
} from './admin-remote.ts';

function describe(admin: Admin): TerminalText {
  const owner = admin.ownerAdminId ? `owner ${admin.ownerAdminId}` : 'owner admin';
  // What the admin may do, not what rows were granted: an owner admin holds every permission.
  const held = effectivePermissions(admin);
  const permissions = held.length > 0 ? held.join(', ') : 'none';
  return terminalText`${admin.id}  ${admin.wallet}  ${admin.status}  "${admin.displayName}"  (${owner}; permissions: ${permissions})`;
}

const PERMISSIONS = ALL_PERMISSIONS.join(', ');
const tenantOption = {
  tenant: {
    type: 'string',
    required: true,
    placeholder: 'ID',
    description: "Tenant id (t_…); over HTTP, the signed-in admin's",
    only: 'local',
  },
} as const;
const adminOption = { admin: { type: 'string', required: true, placeholder: 'ID', description: 'Admin id (adm_…)' } } as const;
const permissionOption = {
  permission: { type: 'string', required: true, placeholder: 'PERMISSION', description: `One of ${PERMISSIONS}` },
} as const;

export const adminCommands: Command[] = [
  {
    words: ['admin', 'create'],
    summary: 'Create an admin for a wallet: locally an owner admin unless --owner; over HTTP below you unless --co-owner',
    options: {
      ...tenantOption,
      wallet: { type: 'string', required: true, placeholder: '0x…', description: 'Wallet address, 0x + 40 hex, any letter case' },
      name: { type: 'string', required: true, placeholder: 'NAME', description: 'Display name' },
      owner: { type: 'string', placeholder: 'ADMIN_ID', description: 'Id of the owning admin; omit for an owner admin', only: 'local' },
      'co-owner': { type: 'boolean', description: 'Make it an owner of your tenant too: owners may', only: 'remote' },
      channel: {
        type: 'string',
        multiple: true,
        placeholder: 'ID|NAME',
        description: 'A channel it may act on (one you are linked to)',
        only: 'remote',
      },
      permission: { type: 'string', multiple: true, placeholder: 'PERMISSION', description: `Permission to grant: ${PERMISSIONS}` },
      feature: {
        type: 'string',
        multiple: true,
        placeholder: 'NAME',
        description:
          "A feature of this admin: a label of your own, which your applications read from the principal's effectiveFeatures (the service gates nothing on it); lowercase letters and digits, words joined by . _ : - (beta, editor:v2)",
        only: 'local',
      },
    },
    remote: createAdminRemotely,
    async run({ values, directory }) {
      const admin = await (await directory()).createAdmin({
        tenantId: stringOption(values, 'tenant'),
        wallet: stringOption(values, 'wallet'),
        displayName: stringOption(values, 'name'),
        ownerAdminId: optionalString(values, 'owner') ?? null,
        permissions: listOption(values, 'permission'),
        features: listOption(values, 'feature'),
      });
      return { json: adminJson(admin), text: terminalText`Created admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'set-status'],
    summary: 'Suspend or reactivate an admin',
    options: { ...adminOption, status: { type: 'string', required: true, placeholder: 'STATUS', description: 'ACTIVE or SUSPENDED' } },
    remote: setStatusRemotely,
    async run({ values, directory }) {
      const status = stringOption(values, 'status').toUpperCase();
      if (!ADMIN_STATUSES.includes(status as AdminStatus)) {
        throw new AppError(
          'VALIDATION_FAILED',
          `--status must be ${ADMIN_STATUSES.join(' or ')} (got "${stringOption(values, 'status')}")`,
        );
      }
      const admin = await (await directory()).setAdminStatus(stringOption(values, 'admin'), status as AdminStatus);
      return { json: adminJson(admin), text: terminalText`Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'grant'],
    summary: 'Grant a permission',
    options: { ...adminOption, ...permissionOption },
    remote: changePermissionRemotely('grant'),
    async run({ values, directory }) {
      const admin = await (await directory()).grantPermission(stringOption(values, 'admin'), stringOption(values, 'permission'));
      return { json: adminJson(admin), text: terminalText`Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'revoke'],
    summary: 'Revoke a permission',
    options: { ...adminOption, ...permissionOption },
    remote: changePermissionRemotely('revoke'),
    async run({ values, directory }) {
      // The store refuses an unknown permission, unless the admin holds it (stored before they were checked).
      const admin = await (await directory()).revokePermission(stringOption(values, 'admin'), stringOption(values, 'permission'));
      return { json: adminJson(admin), text: terminalText`Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'logout'],
    summary: 'End every message the admin has signed, on every instance (log out everywhere); new sign-ins work as before',
    options: adminOption,
    async run({ values, directory }) {
      const admin = await (await directory()).signOutEverywhere(stringOption(values, 'admin'));
      const since = formatRfc3339(admin.signedOutBefore!);
      return {
        json: adminJson(admin),
        text: terminalText`Admin ${describe(admin)}: every message signed before ${since} is logged out (running servers within AUTH_STATE_REFRESH seconds)`,
      };
    },
  },
  {
    words: ['admin', 'set-wallet'],
    summary: "Move an admin to another wallet (the old wallet's signatures stop working)",
    options: { ...adminOption, wallet: { type: 'string', required: true, placeholder: '0x…', description: 'New wallet address' } },
    async run({ values, directory }) {
      const admin = await (await directory()).setAdminWallet(stringOption(values, 'admin'), stringOption(values, 'wallet'));
      return { json: adminJson(admin), text: terminalText`Admin ${describe(admin)}` };
    },
  },
  {
    words: ['admin', 'list'],
    summary: 'List the admins of a tenant (over HTTP: those you may see, a page at a time)',
    options: {
      ...tenantOption,
      status: { type: 'string', placeholder: 'STATUS', description: 'Only those ACTIVE, SUSPENDED or REMOVED', only: 'remote' },
      permission: { type: 'string', placeholder: 'PERMISSION', description: 'Only those holding this permission', only: 'remote' },
      channel: { type: 'string', placeholder: 'ID|NAME', description: 'Only those linked to this channel', only: 'remote' },
      limit: { ...pageOptions.limit, only: 'remote' },
      cursor: { ...pageOptions.cursor, only: 'remote' },
    },
    remote: listAdminsRemotely,
    async run({ values, store }) {
      const tenantId = stringOption(values, 'tenant');
      const s = await store();
      if (!(await s.getTenant(tenantId))) throw tenantNotFound(tenantId);
      const admins = await s.listAdmins(tenantId);
      return {
        json: { items: admins.map(adminJson) },
        text: admins.length > 0 ? terminalLines(admins.map(describe)) : terminalText`No admins`,
      };
    },
  },
  {
    words: ['admin', 'remove'],
    summary: 'Remove an admin: its wallets and sessions end, its record stays for the audit log, the admins below it become yours',
    options: adminOption,
    remote: removeAdminRemotely,
  },
];
