import { effectivePermissions } from '../auth/permissions.ts';
import { AppError } from '../errors/app-error.ts';
import { adminNotFound } from '../errors/common-errors.ts';
import type { Admin } from '../model/admins.ts';
import type { Channel } from '../model/channels.ts';
import type { Permission } from '../model/permissions.ts';

/**
 * Who may do what to whom inside a tenant (docs/administration.md, "The rules"): plain functions
 * over the acting admin and its tenant's admins as stored now, never over a signed-in principal
 * that may be AUTH_STATE_REFRESH old. Each refusal is an AppError with its stable code.
 */

/** The acting admin and its tenant's admins (every one, removed ones included), read for one request. */
export interface TenantView {
  actor: Admin;
  admins: readonly Admin[];
}

export const isOwner = (admin: Pick<Admin, 'ownerAdminId'>): boolean => admin.ownerAdminId === null;

export function holds(admin: Admin, permission: string): boolean {
  return effectivePermissions(admin).includes(permission);
}

/** PERMISSION_DENIED unless the actor holds `permission` (an owner holds them all). */
export function requireHeld(view: TenantView, permission: Permission): void {
  if (!holds(view.actor, permission)) {
    throw new AppError('PERMISSION_DENIED', `This admin lacks the permission ${permission}`);
  }
}

/** PERMISSION_NOT_HELD naming what the actor would grant without holding it. */
export function requireGrantable(view: TenantView, permissions: readonly string[]): void {
  const held = effectivePermissions(view.actor);
  const lacking = permissions.filter((p) => !held.includes(p));
  if (lacking.length > 0) {
    throw new AppError('PERMISSION_NOT_HELD', `Nobody grants what they do not hold: this admin lacks ${lacking.join(', ')}`, {
      permissions: lacking,
    });
  }
}

/** The admins strictly below `adminId`: those it made, and theirs. */
export function adminsBelow(admins: readonly Admin[], adminId: string): Set<string> {
  const children = new Map<string, string[]>();
  for (const admin of admins) {
    if (admin.ownerAdminId === null) continue;
    children.set(admin.ownerAdminId, [...(children.get(admin.ownerAdminId) ?? []), admin.id]);
  }
  const below = new Set<string>();
  const queue = [...(children.get(adminId) ?? [])];
  while (queue.length > 0) {
    const id = queue.shift()!;
    if (below.has(id)) continue; // a cycle cannot be stored, but a loop here must never spin
    below.add(id);
    queue.push(...(children.get(id) ?? []));
  }
  return below;
}

/** The admins the actor may read: an owner every admin of its tenant, a sub-admin itself and those below it. */
export function visibleAdmins(view: TenantView): Admin[] {
  if (isOwner(view.actor)) return [...view.admins];
  const below = adminsBelow(view.admins, view.actor.id);
  return view.admins.filter((a) => a.id === view.actor.id || below.has(a.id));
}

/**
 * The admin `id` of the actor's tenant that the actor may see (visibleAdmins: an owner any, a
 * sub-admin itself and those below it), or ADMIN_NOT_FOUND: another tenant's admin, or one the actor
 * may not see (its owner, a peer), is no different from none, so that no answer confirms it exists.
 */
export function adminOfTenant(view: TenantView, id: string): Admin {
  const admin = view.admins.find((a) => a.id === id);
  if (admin === undefined || !mayView(view, admin)) throw adminNotFound(id);
  return admin;
}

function mayView(view: TenantView, admin: Admin): boolean {
  return isOwner(view.actor) || admin.id === view.actor.id || adminsBelow(view.admins, view.actor.id).has(admin.id);
}

/**
 * ADMIN_OUT_OF_REACH unless the actor may act on `target`: an owner on anyone of its tenant; a
 * sub-admin only on the admins below it whose permissions it holds itself.
 */
export function requireReach(view: TenantView, target: Admin): void {
  if (isOwner(view.actor)) return;
  if (target.id === view.actor.id) throw new AppError('ADMIN_OUT_OF_REACH', 'A sub-admin does not manage itself; ask the admin above it');
  if (!adminsBelow(view.admins, view.actor.id).has(target.id)) {
    throw new AppError(
      'ADMIN_OUT_OF_REACH',
      `Admin ${target.id} is not below this admin: a sub-admin manages only the admins it made, and theirs`,
    );
  }
  const held = effectivePermissions(view.actor);
  const beyond = target.permissions.filter((p) => !held.includes(p));
  if (beyond.length > 0) {
    throw new AppError(
      'ADMIN_OUT_OF_REACH',
      `Admin ${target.id} holds ${beyond.join(', ')}, which this admin does not: it may not manage it`,
    );
  }
}

/** OWNER_REQUIRED unless the actor is an owner. */
export function requireOwner(view: TenantView, what: string): void {
  if (!isOwner(view.actor)) throw new AppError('OWNER_REQUIRED', `Only an owner ${what}`);
}

/**
 * The channels the actor may hand out or manage: for an owner every channel of its tenant, for a
 * sub-admin those linked to it. Another's is CHANNEL_NOT_FOUND, as everywhere a channel one may
 * not see is named.
 */
export function requireChannelHeld(view: TenantView, channel: Channel | undefined, ref: string): Channel {
  const held =
    channel !== undefined &&
    channel.tenantId === view.actor.tenantId &&
    (isOwner(view.actor) || view.actor.channelIds.includes(channel.id));
  if (!held) throw new AppError('CHANNEL_NOT_FOUND', `No channel "${ref.slice(0, 100)}" that this admin may use`);
  return channel!;
}
