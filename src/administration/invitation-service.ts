import { createHash, randomBytes } from 'node:crypto';
import { effectivePermissions } from '../auth/permissions.ts';
import { AppError } from '../errors/app-error.ts';
import type { RunLease } from '../model/actors.ts';
import type { Admin } from '../model/admins.ts';
import { type Invitation, type InvitationRecords, invitationState } from '../model/invitations.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import type { TenantRecords } from '../model/tenants.ts';
import { adminsBelow, isOwner, requireGrantable, requireHeld, requireReach, visibleAdmins } from './admin-rules.ts';
import type { AdministrationStore, SignInState } from './admin-service.ts';
import { type AdministrationAudit, adminSnapshot } from './administration-audit.ts';
import { heldChannel, tenantView } from './tenant-views.ts';

export interface NewInvitationRequest {
  permissions: readonly string[];
  /** Channel ids or names. */
  channels: readonly string[];
  /** Seconds until it expires; at most the service's cap. */
  expiresIn: number;
  wallet?: string | undefined;
  displayName?: string | undefined;
}

/**
 * What the holder of an invitation's link is shown before accepting (docs/administration.md): who
 * invites, to which tenant, and exactly what accepting grants. An invitation makes a sub-admin below
 * its inviter, never an owner.
 */
export interface InvitationPreview {
  invitation: Invitation;
  tenant: { id: string; name: string };
  inviter: { id: string; displayName: string };
  /** The channels it links the new admin to, by name. */
  channels: { id: string; name: string }[];
}

/** The token in clear is answered once, at creation; the store keeps its SHA-256 only. */
export interface IssuedInvitation {
  invitation: Invitation;
  token: string;
}

const TOKEN_PREFIX = 'wai_';

export const tokenHash = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Invitations: an admin with admins:manage invites someone to join below it with what it holds;
 * the invitee accepts with a wallet that is no admin yet, once, while it is pending and while the
 * inviter is still active and still holds what it grants.
 */
export class InvitationService {
  constructor(
    private readonly store: AdministrationStore & InvitationRecords & Pick<TenantRecords, 'getTenant'>,
    private readonly audit: AdministrationAudit,
    private readonly signIns: SignInState,
    /** INVITATION_MAX_SECONDS */
    private readonly maxSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async create(actorId: string, request: NewInvitationRequest, run?: RunLease): Promise<IssuedInvitation> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'admins:manage');
    requireGrantable(view, request.permissions);
    if (!Number.isSafeInteger(request.expiresIn) || request.expiresIn < 60 || request.expiresIn > this.maxSeconds) {
      throw new AppError('VALIDATION_FAILED', `expiresIn must be a whole number of seconds from 60 to ${this.maxSeconds}`);
    }
    const channelIds: string[] = [];
    for (const ref of request.channels) channelIds.push((await heldChannel(this.store, view, ref)).id);
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const at = this.now();
    const invitation = await this.store.atomically(async (tx) => {
      const created = await tx.createInvitation({
        tenantId: view.actor.tenantId,
        inviterAdminId: view.actor.id,
        displayName: request.displayName?.trim() || null,
        wallet: request.wallet ?? null,
        permissions: [...new Set(request.permissions)],
        channelIds: [...new Set(channelIds)],
        createdAt: at,
        expiresAt: at + request.expiresIn * 1000,
        tokenHash: tokenHash(token),
      });
      await this.audit.append(tx.files, {
        tenantId: view.actor.tenantId,
        adminId: view.actor.id,
        run,
        action: 'invitation.create',
        before: null,
        after: invitationSnapshot(created),
      });
      return created;
    });
    return { invitation, token };
  }

  /** The actor's tenant's invitations it may see: an owner all, a sub-admin its own and those of the admins below it. */
  async list(actorId: string, page: PageRequest): Promise<Page<Invitation>> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'admins:manage');
    const inviters = isOwner(view.actor) ? undefined : [view.actor.id, ...adminsBelow(view.admins, view.actor.id)];
    return this.store.listInvitations(view.actor.tenantId, page, inviters);
  }

  async revoke(actorId: string, id: string, run?: RunLease): Promise<void> {
    const view = await tenantView(this.store, actorId);
    const invitation = await this.store.getInvitation(id);
    const notFound = () => new AppError('INVITATION_NOT_FOUND', `No invitation ${id.slice(0, 100)} in this tenant`);
    if (invitation === undefined || invitation.tenantId !== view.actor.tenantId) throw notFound();
    if (invitation.inviterAdminId !== view.actor.id) {
      requireHeld(view, 'admins:manage');
      // One of an admin the actor may not see (above it, a peer) is not listed to it either: not found.
      const inviter = visibleAdmins(view).find((a) => a.id === invitation.inviterAdminId);
      if (inviter === undefined) throw notFound();
      requireReach(view, inviter);
    }
    const at = this.now();
    const revoked = await this.store.atomically(async (tx) => {
      if (!(await tx.revokeInvitation(id, at))) return false;
      await this.audit.append(tx.files, {
        tenantId: view.actor.tenantId,
        adminId: view.actor.id,
        run,
        action: 'invitation.revoke',
        before: invitationSnapshot(invitation),
        after: { ...invitationSnapshot(invitation), state: 'revoked' },
      });
      return true;
    });
    if (!revoked) {
      const state = invitationState(invitation, at);
      if (state === 'revoked') return; // revoking twice is what was asked: done
      throw new AppError('INVITATION_USED', 'This invitation was accepted already; remove the admin it made instead');
    }
  }

  /** The pending invitation a token opens: checked before the invitee's signature costs anything. */
  async open(token: string): Promise<Invitation> {
    const invitation = await this.store.findInvitationByTokenHash(tokenHash(token));
    if (invitation === undefined) throw new AppError('INVITATION_NOT_FOUND', 'No such invitation: check the link, or ask for a new one');
    const state = invitationState(invitation, this.now());
    if (state !== 'pending') {
      throw new AppError(
        state === 'accepted' ? 'INVITATION_USED' : state === 'revoked' ? 'INVITATION_REVOKED' : 'INVITATION_EXPIRED',
        state === 'accepted'
          ? 'This invitation was accepted already; an invitation is used once'
          : `This invitation is ${state}; ask for a new one`,
      );
    }
    return invitation;
  }

  /**
   * The pending invitation a token opens, with what its link's holder needs to decide: the
   * inviter's name, the tenant's, the channels' names. Refused as `open` refuses; nothing changes.
   */
  async preview(token: string): Promise<InvitationPreview> {
    const invitation = await this.open(token);
    const [tenant, inviter] = await Promise.all([
      this.store.getTenant(invitation.tenantId),
      this.store.getAdmin(invitation.inviterAdminId),
    ]);
    const channels = await Promise.all(
      invitation.channelIds.map(async (id) => ({ id, name: (await this.store.getChannel(id))?.name ?? id })),
    );
    return {
      invitation,
      tenant: { id: invitation.tenantId, name: tenant?.name ?? invitation.tenantId },
      inviter: { id: invitation.inviterAdminId, displayName: inviter?.displayName ?? invitation.inviterAdminId },
      channels,
    };
  }

  /** The invitee, signed in with `wallet` (no admin's yet), accepts: its admin is made below the inviter. */
  async accept(invitation: Invitation, wallet: string, displayName: string | undefined): Promise<Admin> {
    const address = wallet.toLowerCase();
    if (invitation.wallet !== null && invitation.wallet !== address) {
      throw new AppError('INVITATION_WALLET_MISMATCH', 'This invitation is for another wallet: sign in with the wallet it names');
    }
    await this.requireInviterEntitled(invitation);
    const name = displayName?.trim() || invitation.displayName || `Invited admin ${address.slice(0, 8)}`;
    const admin = await this.store.atomically(async (tx) => {
      const accepted = await tx.acceptInvitation(invitation.id, { wallet: address, displayName: name, at: this.now() });
      await this.audit.append(tx.files, {
        tenantId: invitation.tenantId,
        adminId: accepted.id,
        action: 'invitation.accept',
        targetAdminId: accepted.id,
        before: invitationSnapshot(invitation),
        after: adminSnapshot(accepted),
      });
      return accepted;
    });
    // This instance may have answered "no admin" for this wallet a moment ago: it is one now.
    this.signIns.forgetWallets([address]);
    return admin;
  }

  /** Checked again at acceptance: the inviter is still active and still holds every permission and channel it grants. */
  private async requireInviterEntitled(invitation: Invitation): Promise<void> {
    const inviter = await this.store.getAdmin(invitation.inviterAdminId);
    const notEntitled = (why: string) => new AppError('INVITER_NOT_ENTITLED', `The admin who invited you ${why}; ask for a new invitation`);
    if (inviter === undefined || inviter.removedAt !== null) throw notEntitled('was removed since');
    if (inviter.status !== 'ACTIVE') throw notEntitled('is suspended');
    const held = effectivePermissions(inviter);
    if (!held.includes('admins:manage') || invitation.permissions.some((p) => !held.includes(p))) {
      throw notEntitled('no longer holds what the invitation grants');
    }
    if (!isOwner(inviter) && invitation.channelIds.some((c) => !inviter.channelIds.includes(c))) {
      throw notEntitled('is no longer linked to every channel the invitation grants');
    }
  }
}

export function invitationSnapshot(invitation: Invitation): Record<string, unknown> {
  return {
    id: invitation.id,
    inviterAdminId: invitation.inviterAdminId,
    permissions: invitation.permissions,
    channelIds: invitation.channelIds,
    wallet: invitation.wallet,
    expiresAt: new Date(invitation.expiresAt).toISOString(),
  };
}
