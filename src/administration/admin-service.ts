import { AppError } from '../errors/app-error.ts';
import { walletTaken } from '../errors/common-errors.ts';
import type { RunLease } from '../model/actors.ts';
import type { Admin, AdminChanges, AdminRecords, AdminState, AdminStatus, AdminWallet } from '../model/admins.ts';
import { stateOf } from '../model/admins.ts';
import type { Channel, ChannelRecords } from '../model/channels.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import {
  adminOfTenant,
  holds,
  isOwner,
  requireGrantable,
  requireHeld,
  requireOwner,
  requireReach,
  type TenantView,
  visibleAdmins,
} from './admin-rules.ts';
import { type AdministrationAudit, adminSnapshot } from './administration-audit.ts';
import { pageOf } from './list-page.ts';
import { heldChannel, tenantView } from './tenant-views.ts';
import type { IssuedChallenge, WalletProofs } from './wallet-proofs.ts';

/**
 * What the administration services work on: the records, and `atomically`, in which each change
 * runs with the append of its audit entry, so that they commit together or not at all.
 */
export type AdministrationStore = AdminRecords & AdminChanges & ChannelRecords & Pick<MetadataStore, 'atomically'>;

/** Ends, on this instance at once, what a change of these wallets' admins ends everywhere within AUTH_STATE_REFRESH. */
export interface SignInState {
  forgetWallets(wallets: readonly string[]): void;
}

export interface AdminFilter {
  status?: AdminState | undefined;
  permission?: string | undefined;
  /** A channel id or name. */
  channel?: string | undefined;
}

export interface NewAdminRequest {
  displayName: string;
  wallet: string;
  permissions: readonly string[];
  /** Channel ids or names. */
  channels: readonly string[];
  owner?: boolean | undefined;
}

/** A challenge's typed data as the service gave it, and the new wallet's eth_signTypedData_v4 signature of it. */
/** A wallet's proof checked, its challenge not yet used up (AdminService.proveWallet). */
export interface ProvenWallet {
  wallet: string;
  use(tx: MetadataStore): Promise<void>;
}

export interface WalletProof {
  typedData: unknown;
  signature: string;
}

export interface AdminChangeRequest {
  displayName?: string | undefined;
  permissions?: readonly string[] | undefined;
  status?: AdminStatus | undefined;
}

/**
 * A tenant's admins and their wallets, administered by its own admins under the rules of
 * admin-rules.ts; every change commits with its audit entry (the record before and after). A
 * change a held operation's run makes carries the run (`run`), whose lease its transaction renews.
 */
export class AdminService {
  constructor(
    private readonly store: AdministrationStore,
    private readonly audit: AdministrationAudit,
    private readonly signIns: SignInState,
    private readonly proofs: WalletProofs,
  ) {}

  async list(actorId: string, filter: AdminFilter, page: PageRequest): Promise<Page<Admin>> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'admins:read');
    const channelId = filter.channel === undefined ? undefined : (await heldChannel(this.store, view, filter.channel)).id;
    const matching = visibleAdmins(view).filter(
      (a) =>
        (filter.status === undefined || stateOf(a) === filter.status) &&
        (filter.permission === undefined || holds(a, filter.permission)) &&
        (channelId === undefined || a.channelIds.includes(channelId)),
    );
    return pageOf(matching, page);
  }

  async get(actorId: string, id: string): Promise<Admin> {
    const view = await tenantView(this.store, actorId);
    return this.readable(view, id);
  }

  async create(actorId: string, request: NewAdminRequest, run?: RunLease): Promise<Admin> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'admins:manage');
    if (request.owner === true) requireOwner(view, 'makes another owner');
    requireGrantable(view, request.permissions);
    const channels: Channel[] = [];
    for (const ref of request.channels) channels.push(await heldChannel(this.store, view, ref));
    if ((await this.store.findAdminByWallet(request.wallet)) !== undefined) throw walletTaken(request.wallet);
    return this.store.atomically(async (tx) => {
      const created = await tx.createAdmin({
        tenantId: view.actor.tenantId,
        wallet: request.wallet,
        displayName: request.displayName,
        ownerAdminId: request.owner === true ? null : view.actor.id,
        permissions: [...request.permissions],
      });
      for (const channel of channels) await tx.linkChannel(channel.id, created.id);
      const admin = (await tx.getAdmin(created.id))!;
      await this.record(tx, view, 'admin.create', admin, null, admin, run);
      return admin;
    });
  }

  async update(actorId: string, id: string, request: AdminChangeRequest, ifRevision?: number, run?: RunLease): Promise<Admin> {
    const view = await tenantView(this.store, actorId);
    const target = adminOfTenant(view, id);
    if (target.removedAt !== null) throw removed(id);
    if (target.id === view.actor.id && !isOwner(view.actor)) this.checkOwnChange(view, request);
    else {
      requireHeld(view, 'admins:manage');
      requireReach(view, target);
      if (request.permissions !== undefined) requireGrantable(view, request.permissions);
    }
    const admin = await this.store.atomically(async (tx) => {
      const before = await this.heldBefore(tx, target);
      const changed = await tx.updateAdmin(id, request, ifRevision);
      await this.record(tx, view, 'admin.update', changed, before, changed, run);
      return changed;
    });
    // Read afresh on their next request here (elsewhere within AUTH_STATE_REFRESH): a suspension, a
    // reactivation or new permissions are in force at once on this instance.
    this.signIns.forgetWallets(target.wallets);
    return admin;
  }

  async remove(actorId: string, id: string, ifRevision?: number, run?: RunLease): Promise<void> {
    const view = await tenantView(this.store, actorId);
    const target = adminOfTenant(view, id);
    if (target.removedAt !== null) throw removed(id);
    requireHeld(view, 'admins:manage');
    if (target.id === view.actor.id) throw new AppError('ADMIN_OUT_OF_REACH', 'An admin does not remove itself; ask another admin');
    requireReach(view, target);
    await this.store.atomically(async (tx) => {
      const before = await this.heldBefore(tx, target);
      const below = (await tx.listAdmins(target.tenantId)).filter((a) => a.ownerAdminId === target.id);
      const { admin, moved } = await tx.removeAdmin(id, view.actor.id, ifRevision);
      await this.record(tx, view, 'admin.remove', admin, before, admin, run);
      // The admins below it moved to the actor: each change has its entry, in the same transaction.
      for (const movedId of moved) {
        const was = below.find((a) => a.id === movedId);
        const after = await tx.getAdmin(movedId);
        if (was && after) await this.record(tx, view, 'admin.update', after, was, after, run);
      }
    });
    this.signIns.forgetWallets(target.wallets);
  }

  /**
   * Ends every message the admin has signed until now, on every instance (logout?all=true): its
   * record says from when messages count again, and the tenant's log says when it was done.
   */
  async signOutEverywhere(actorId: string): Promise<void> {
    const view = await tenantView(this.store, actorId);
    await this.store.atomically(async (tx) => {
      const after = await tx.signOutEverywhere(view.actor.id);
      await this.audit.append(tx.files, {
        tenantId: view.actor.tenantId,
        adminId: view.actor.id,
        action: 'admin.sign-out',
        targetAdminId: view.actor.id,
        before: { signedOutBefore: isoOrNull(view.actor.signedOutBefore) },
        after: { signedOutBefore: isoOrNull(after.signedOutBefore) },
      });
    });
    this.signIns.forgetWallets(view.actor.wallets);
  }

  async wallets(actorId: string, id: string): Promise<AdminWallet[]> {
    const view = await tenantView(this.store, actorId);
    const target = await this.readable(view, id);
    return this.store.listAdminWallets(target.id);
  }

  async walletChallenge(actorId: string, id: string, wallet: string, chainId: number | undefined): Promise<IssuedChallenge> {
    const view = await tenantView(this.store, actorId);
    const target = this.walletReceiver(view, id);
    if ((await this.store.findAdminByWallet(wallet)) !== undefined) throw walletTaken(wallet);
    return this.proofs.challenge(target, wallet, chainId);
  }

  /** Adds the wallet a signed challenge proves; the challenge is used up in the transaction that adds it, or stays good. */
  async addWallet(actorId: string, id: string, proof: WalletProof): Promise<AdminWallet> {
    const proven = await this.proveWallet(actorId, id, proof);
    return this.addProvenWallet(actorId, id, proven.wallet, undefined, proven.use);
  }

  /**
   * The wallet a signed challenge proves, its signature checked, the challenge still open: `use`
   * uses it up, in the transaction that acts on it (the one that adds the wallet, or the one that
   * records a held wallet.add's proposal: a challenge lives 10 minutes, a proposal days), so that
   * a failed write leaves the proof good for a retry, and two cannot both use it.
   */
  async proveWallet(actorId: string, id: string, proof: WalletProof): Promise<ProvenWallet> {
    const view = await tenantView(this.store, actorId);
    const target = this.walletReceiver(view, id);
    const checked = await this.proofs.check(target.id, proof.typedData, proof.signature);
    return { wallet: checked.wallet, use: (tx) => this.proofs.use(tx, checked.key) };
  }

  /** Adds a wallet proven by proveWallet: the second half of addWallet. */
  async addProvenWallet(
    actorId: string,
    id: string,
    wallet: string,
    run?: RunLease,
    useProof: (tx: MetadataStore) => Promise<void> = async () => {},
  ): Promise<AdminWallet> {
    const view = await tenantView(this.store, actorId);
    const target = this.walletReceiver(view, id);
    const added = await this.store.atomically(async (tx) => {
      await useProof(tx);
      const before = await this.heldBefore(tx, target);
      const stored = await tx.addAdminWallet(target.id, wallet);
      const after = (await tx.getAdmin(target.id))!;
      await this.record(tx, view, 'wallet.add', after, before, after, run);
      return stored;
    });
    // This instance may hold "no admin" for the wallet from an earlier try: it signs in at once.
    this.signIns.forgetWallets([wallet]);
    return added;
  }

  async removeWallet(actorId: string, id: string, address: string): Promise<void> {
    const view = await tenantView(this.store, actorId);
    const target = adminOfTenant(view, id);
    if (target.id !== view.actor.id) {
      requireHeld(view, 'admins:manage');
      requireReach(view, target);
    }
    await this.store.atomically(async (tx) => {
      const before = await this.heldBefore(tx, target);
      await tx.removeAdminWallet(target.id, address);
      const after = (await tx.getAdmin(target.id))!;
      await this.record(tx, view, 'wallet.remove', after, before, after);
    });
    this.signIns.forgetWallets([address]);
  }

  /** An admin the actor may read: itself, or with admins:read one it sees (adminOfTenant: any other is not found). */
  private readable(view: TenantView, id: string): Admin {
    if (id !== view.actor.id) requireHeld(view, 'admins:read');
    return adminOfTenant(view, id);
  }

  /** A wallet joins an admin only by that admin's own hand or an owner's: nobody adds theirs to someone more privileged. */
  private walletReceiver(view: TenantView, id: string): Admin {
    const target = adminOfTenant(view, id);
    if (target.removedAt !== null) throw removed(id);
    if (target.id !== view.actor.id) requireOwner(view, 'adds a wallet to another admin: an admin adds its own wallets');
    return target;
  }

  /** What a sub-admin may change of itself: its name, and permissions it gives up; never more. */
  private checkOwnChange(view: TenantView, request: AdminChangeRequest): void {
    if (request.status !== undefined) {
      throw new AppError('ADMIN_OUT_OF_REACH', 'A sub-admin does not change its own status; ask the admin above it');
    }
    if (request.permissions !== undefined) {
      const raised = request.permissions.filter((p) => !view.actor.permissions.includes(p));
      if (raised.length > 0) {
        throw new AppError('PERMISSION_NOT_HELD', `A sub-admin never raises its own permissions: it does not hold ${raised.join(', ')}`, {
          permissions: raised,
        });
      }
    }
  }

  /**
   * The admin as it is when the change's transaction holds its tenant: the entry's `before`, exact
   * even when another change of it committed since the request read it (that one has its own entry).
   */
  private async heldBefore(tx: MetadataStore, target: Admin): Promise<Admin> {
    await tx.holdTenant(target.tenantId);
    return (await tx.getAdmin(target.id)) ?? target;
  }

  /** Appends the change's entry in its transaction (`tx`). */
  private record(
    tx: MetadataStore,
    view: TenantView,
    action: 'admin.create' | 'admin.update' | 'admin.remove' | 'wallet.add' | 'wallet.remove',
    target: Admin,
    before: Admin | null,
    after: Admin,
    run?: RunLease,
  ): Promise<void> {
    return this.audit.append(tx.files, {
      tenantId: view.actor.tenantId,
      adminId: view.actor.id,
      run,
      action,
      targetAdminId: target.id,
      before: before === null ? null : adminSnapshot(before),
      after: adminSnapshot(after),
    });
  }
}

const isoOrNull = (at: number | null): string | null => (at === null ? null : new Date(at).toISOString());

function removed(id: string): AppError {
  return new AppError('ADMIN_REMOVED', `Admin ${id} was removed; its record is kept for the audit log only`);
}
