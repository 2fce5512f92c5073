import { AppError } from '../errors/app-error.ts';
import type { Admin } from '../model/admins.ts';
import type { Channel } from '../model/channels.ts';
import { adminOfTenant, requireHeld, requireReach, visibleAdmins } from './admin-rules.ts';
import type { AdministrationStore, SignInState } from './admin-service.ts';
import type { AdministrationAudit } from './administration-audit.ts';
import { heldChannel, tenantView } from './tenant-views.ts';

const CHANNEL_ID_SHAPE = /^chn_/i;

/** What an administration event records of a channel. */
export const channelSnapshot = (channel: Channel): Record<string, unknown> => ({
  id: channel.id,
  name: channel.name,
  archived: channel.archivedAt !== null,
});

/**
 * A tenant's channels, managed by its admins: create, rename, archive, and link admins to them.
 * An owner manages every channel of its tenant, a sub-admin those linked to it.
 */
export class ChannelManagement {
  constructor(
    private readonly store: AdministrationStore,
    private readonly audit: AdministrationAudit,
    private readonly signIns: SignInState,
  ) {}

  async create(actorId: string, name: string): Promise<Channel> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'channels:manage');
    requireNotIdShaped(name);
    const channel = await this.store.atomically(async (tx) => {
      const created = await tx.createChannel({ tenantId: view.actor.tenantId, name });
      // The creator is linked to what it makes, so that it sees and uses it at once.
      await tx.linkChannel(created.id, view.actor.id);
      await this.audit.append(tx.files, {
        tenantId: view.actor.tenantId,
        adminId: view.actor.id,
        action: 'channel.create',
        channelId: created.id,
        targetAdminId: view.actor.id,
        before: null,
        after: channelSnapshot(created),
      });
      return created;
    });
    this.signIns.forgetWallets(view.actor.wallets);
    return channel;
  }

  async update(actorId: string, ref: string, change: { name?: string | undefined; archived?: boolean | undefined }): Promise<Channel> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'channels:manage');
    const before = await heldChannel(this.store, view, ref);
    if (change.name === undefined && change.archived === undefined) {
      throw new AppError('VALIDATION_FAILED', 'A channel change names name, archived or both; this one names neither');
    }
    if (change.name !== undefined) requireNotIdShaped(change.name);
    return this.store.atomically(async (tx) => {
      let channel = before;
      if (change.name !== undefined) channel = await tx.renameChannel(channel.id, change.name);
      if (change.archived !== undefined) channel = await tx.setChannelArchived(channel.id, change.archived);
      await this.audit.append(tx.files, {
        tenantId: view.actor.tenantId,
        adminId: view.actor.id,
        action: 'channel.update',
        channelId: channel.id,
        before: channelSnapshot(before),
        after: channelSnapshot(channel),
      });
      return channel;
    });
  }

  /** The admins linked to the channel that the actor may read. */
  async admins(actorId: string, ref: string): Promise<Admin[]> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'admins:read');
    const channel = await heldChannel(this.store, view, ref);
    return visibleAdmins(view).filter((a) => a.channelIds.includes(channel.id));
  }

  async link(actorId: string, ref: string, adminId: string, linked: boolean): Promise<void> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'admins:manage');
    const channel = await heldChannel(this.store, view, ref);
    const target = adminOfTenant(view, adminId);
    if (target.removedAt !== null)
      throw new AppError('ADMIN_REMOVED', `Admin ${adminId} was removed; its record is kept for the audit log only`);
    requireReach(view, target);
    if (target.channelIds.includes(channel.id) === linked) return; // already so: nothing to change or record
    await this.store.atomically(async (tx) => {
      // The view above was read before this transaction: a request alike may have made the change
      // since, and that change has its entry already. Only a write that changed the link records one.
      const changed = linked ? await tx.linkChannel(channel.id, target.id) : await tx.unlinkChannel(channel.id, target.id);
      if (!changed) return;
      const after = (await tx.getAdmin(target.id))!;
      await this.audit.append(tx.files, {
        tenantId: view.actor.tenantId,
        adminId: view.actor.id,
        action: linked ? 'channel.link' : 'channel.unlink',
        channelId: channel.id,
        targetAdminId: target.id,
        ...linkChange(after.channelIds, channel.id, linked),
      });
    });
    this.signIns.forgetWallets(target.wallets);
  }
}

/**
 * The admin's channels before and after a link (or an unlink) that changed exactly that link, both
 * from what the transaction reads after it: exact, however many changes raced before it.
 */
export function linkChange(after: readonly string[], channelId: string, linked: boolean) {
  const before = linked ? after.filter((id) => id !== channelId) : [...after, channelId].sort();
  return { before: { channelIds: before }, after: { channelIds: [...after] } };
}

/** A channel is named by id or by name in every URL: a name that looks like an id would be read as one. */
function requireNotIdShaped(name: string): void {
  if (CHANNEL_ID_SHAPE.test(name.trim())) {
    throw new AppError('VALIDATION_FAILED', 'A channel name may not start with "chn_": URLs would read it as a channel id');
  }
}
