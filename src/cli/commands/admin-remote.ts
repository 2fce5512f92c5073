import type { AdminQuery, Permission } from '../../client/index.ts';
import type { CommandResult, OptionValues, RemoteContext } from '../command.ts';
import { listOption, optionalString, stringOption, UsageError } from '../command.ts';
import { pageRequestOf, pageText } from '../paging.ts';
import { isPermission, permissionOption, permissionsOption } from '../remote/permission-option.ts';
import { describeAdmin } from '../remote/remote-views.ts';
import { terminalText } from '../terminal-text.ts';

/*
 * The admin commands over HTTP, as the signed-in admin (docs/administration.md): the service
 * enforces who may do what; these only turn the options into the API's requests.
 */

const STATUSES = ['ACTIVE', 'SUSPENDED'] as const;

function statusOption(values: OptionValues): (typeof STATUSES)[number] {
  const status = stringOption(values, 'status').toUpperCase();
  if (!(STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`--status must be ${STATUSES.join(' or ')} (got "${stringOption(values, 'status')}")`);
  }
  return status as (typeof STATUSES)[number];
}

const LIST_STATUSES = ['ACTIVE', 'SUSPENDED', 'REMOVED'] as const;

function listStatusOption(values: OptionValues): AdminQuery['status'] {
  const status = optionalString(values, 'status')?.toUpperCase();
  if (status !== undefined && !(LIST_STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`--status must be ${LIST_STATUSES.join(', ')} (got "${optionalString(values, 'status')}")`);
  }
  return status as AdminQuery['status'];
}

export async function createAdminRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const admin = await (await client()).createAdmin({
    displayName: stringOption(values, 'name'),
    wallet: stringOption(values, 'wallet'),
    permissions: permissionsOption(values),
    channels: listOption(values, 'channel'),
    ...(values['co-owner'] === true ? { owner: true } : {}),
  });
  return { json: { ...admin }, text: terminalText`Created admin ${describeAdmin(admin)}` };
}

export async function setStatusRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const admin = await (await client()).updateAdmin(stringOption(values, 'admin'), { status: statusOption(values) });
  return { json: { ...admin }, text: terminalText`Admin ${describeAdmin(admin)}` };
}

/**
 * Grant and revoke replace the granted set: read it, change one permission, and write it back only
 * if nobody changed the admin meanwhile (If-Match), so that no concurrent change is lost.
 */
export function changePermissionRemotely(change: 'grant' | 'revoke') {
  return async ({ values, client }: RemoteContext): Promise<CommandResult> => {
    const api = await client();
    const adminId = stringOption(values, 'admin');
    const permission = permissionOption(values)!;
    const current = await api.getAdmin(adminId);
    // An admin holds only permissions (its features are listed apart): the set it holds, as the API names them.
    const held = current.effectivePermissions.filter((p): p is Permission => isPermission(p) && p !== permission);
    const permissions = change === 'grant' ? [...held, permission] : held;
    const admin = await api.updateAdmin(adminId, { permissions }, { ifMatch: current.etag });
    return { json: { ...admin }, text: terminalText`Admin ${describeAdmin(admin)}` };
  };
}

export async function listAdminsRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const page = await (await client()).listAdmins({
    ...pageRequestOf(values),
    status: listStatusOption(values),
    permission: permissionOption(values),
    channel: optionalString(values, 'channel'),
  });
  return { json: { ...page }, text: pageText(page.items.map(describeAdmin), page, terminalText`No admins`) };
}

export async function removeAdminRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const adminId = stringOption(values, 'admin');
  await (await client()).removeAdmin(adminId);
  return {
    json: { adminId, removed: true },
    text: terminalText`Removed admin ${adminId}: its wallets and sessions are gone, the admins below it are now yours`,
  };
}
