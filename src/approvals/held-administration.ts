import { createHash } from 'node:crypto';
import { adminOfTenant, requireGrantable, requireHeld, requireOwner } from '../administration/admin-rules.ts';
import type { AdminChangeRequest, AdminService, NewAdminRequest, WalletProof } from '../administration/admin-service.ts';
import type { InvitationService, IssuedInvitation, NewInvitationRequest } from '../administration/invitation-service.ts';
import { tenantView } from '../administration/tenant-views.ts';
import { AppError } from '../errors/app-error.ts';
import type { RunLease } from '../model/actors.ts';
import type { Admin, AdminRecords, AdminWallet } from '../model/admins.ts';
import type { ApprovalRecords, HeldOperation, Proposal } from '../model/approvals.ts';
import type { AuditEvent } from '../model/audit.ts';
import { canonicalPlan } from './canonical-plan.ts';
import { type Held, ran } from './held.ts';
import { countedPermissions } from './policy-rules.ts';
import type { HeldRequest, ProposalService } from './proposal-service.ts';

type Store = Pick<AdminRecords, 'getAdmin' | 'listAdmins'> & Pick<ApprovalRecords, 'listPolicies'>;

/**
 * The changes of who may approve, under the policies (docs/approvals.md): creating an admin or an
 * invitation that grants a permission some rule counts (or an owner), raising an admin's permissions
 * or changing its status, removing an admin, adding a wallet. The rules of administration are checked
 * when the request is made, so that nobody is asked to approve what could never run, and again when
 * it runs, as its proposer. An admin's revision is the plan's ETag: a change of the admin meanwhile
 * voids the intents.
 */
export class HeldAdministration {
  constructor(
    private readonly proposals: ProposalService,
    private readonly admins: AdminService,
    private readonly invitations: InvitationService,
    private readonly store: Store,
  ) {
    // Each is one change with one entry: a run taken over after a crash finds that entry among its
    // own (the change committed) and answers from it, or runs the change (it did not).
    const register = (
      operation: HeldOperation,
      run: (proposal: Proposal, lease: RunLease) => Promise<Record<string, unknown>>,
      done: {
        action: string;
        result: (proposal: Proposal, entry: AuditEvent) => Record<string, unknown> | Promise<Record<string, unknown>>;
      },
    ) =>
      proposals.register(operation, {
        currentEtag: (proposal) => this.currentEtag(proposal),
        run: (proposal, _intents, lease) => run(proposal, lease),
        actsOn: (proposal) =>
          typeof proposal.plan.adminId === 'string' ? { actions: ACTING_ON_AN_ADMIN, targetAdminId: proposal.plan.adminId } : undefined,
        resume: async (proposal, _intents, lease, own) => {
          const entry = own.find((e) => e.action === done.action);
          return entry === undefined ? run(proposal, lease) : done.result(proposal, entry);
        },
      });
    register(
      'admin.create',
      async (p, lease) => ({ adminId: (await this.admins.create(p.proposedBy, p.plan.request as unknown as NewAdminRequest, lease)).id }),
      { action: 'admin.create', result: (_p, entry) => ({ adminId: entry.targetAdminId }) },
    );
    register(
      'admin.change',
      async (p, lease) => {
        const admin = await this.admins.update(
          p.proposedBy,
          p.plan.adminId as string,
          p.plan.request as AdminChangeRequest,
          p.plan.revision as number,
          lease,
        );
        return { adminId: admin.id, revision: admin.revision };
      },
      {
        action: 'admin.update',
        result: async (p) => ({
          adminId: p.plan.adminId as string,
          revision: (await this.store.getAdmin(p.plan.adminId as string))?.revision,
        }),
      },
    );
    register(
      'admin.remove',
      async (p, lease) => {
        await this.admins.remove(p.proposedBy, p.plan.adminId as string, p.plan.revision as number, lease);
        return { adminId: p.plan.adminId as string, removed: true };
      },
      { action: 'admin.remove', result: (p) => ({ adminId: p.plan.adminId as string, removed: true }) },
    );
    register(
      'wallet.add',
      async (p, lease) => {
        const added = await this.admins.addProvenWallet(p.proposedBy, p.plan.adminId as string, p.plan.wallet as string, lease);
        return { adminId: p.plan.adminId as string, wallet: added.address };
      },
      { action: 'wallet.add', result: (p) => ({ adminId: p.plan.adminId as string, wallet: p.plan.wallet as string }) },
    );
    const invite = async (p: Proposal, lease: RunLease) => {
      const issued = await this.invitations.create(p.proposedBy, p.plan.request as unknown as NewInvitationRequest, lease);
      // The token is the proposer's to pass on: kept until the proposer's first read shows it, then only
      // its hash (ProposalService.shownTo).
      return { invitationId: issued.invitation.id, token: issued.token };
    };
    this.proposals.register('invitation.create', {
      currentEtag: (proposal) => this.currentEtag(proposal),
      run: (proposal, _intents, lease) => invite(proposal, lease),
      actsOn: () => undefined,
      // An invitation made by a run that died took its token (kept nowhere but in its answer) with
      // it: that invitation is revoked and a new one issued, so that the proposer gets a usable link.
      resume: async (proposal, _intents, lease, own) => {
        const made = own.filter((e) => e.action === 'invitation.create');
        const revoked = new Set(own.filter((e) => e.action === 'invitation.revoke').map((e) => invitationIdOf(e)));
        for (const entry of made) {
          const id = invitationIdOf(entry);
          if (id !== undefined && !revoked.has(id)) await this.invitations.revoke(proposal.proposedBy, id, lease);
        }
        return invite(proposal, lease);
      },
    });
  }

  async createAdmin(actorId: string, request: NewAdminRequest): Promise<Held<Admin>> {
    const view = await tenantView(this.store, actorId);
    if (await this.grantsApprover(view.actor.tenantId, request.permissions, request.owner === true)) {
      requireHeld(view, 'admins:manage');
      if (request.owner === true) requireOwner(view, 'makes another owner');
      requireGrantable(view, request.permissions);
      const proposal = await this.hold(view.actor, 'admin.create', { request }, requestTag(request), {
        summary: `Create the admin ${request.displayName} (${request.wallet}) with ${describePermissions(request.permissions, request.owner)}`,
        target: request.wallet.toLowerCase(),
      });
      if (proposal !== undefined) return { proposal };
    }
    return ran(await this.admins.create(actorId, request));
  }

  async updateAdmin(actorId: string, id: string, request: AdminChangeRequest, ifRevision?: number): Promise<Held<Admin>> {
    const view = await tenantView(this.store, actorId);
    const target = adminOfTenant(view, id);
    const raised = (request.permissions ?? []).filter((p) => !target.permissions.includes(p));
    const statusChange = request.status !== undefined && request.status !== target.status;
    if ((raised.length > 0 || statusChange) && target.removedAt === null) {
      if (ifRevision !== undefined && ifRevision !== target.revision) {
        throw new AppError('PRECONDITION_FAILED', `Admin ${id} was changed since that ETag was read; read it again`);
      }
      requireHeld(view, 'admins:manage');
      if (request.permissions !== undefined) requireGrantable(view, request.permissions);
      const what = [
        raised.length > 0 ? `grant ${raised.join(', ')}` : '',
        statusChange ? `set the status to ${request.status}` : '',
        request.displayName !== undefined ? `rename to ${request.displayName}` : '',
      ].filter((w) => w !== '');
      const proposal = await this.hold(
        view.actor,
        'admin.change',
        { adminId: id, revision: target.revision, request },
        revisionTag(target),
        {
          summary: `Change the admin ${target.displayName} (${id}): ${what.join('; ')}`,
          target: id,
        },
      );
      if (proposal !== undefined) return { proposal };
    }
    return ran(await this.admins.update(actorId, id, request, ifRevision));
  }

  async removeAdmin(actorId: string, id: string, ifRevision?: number): Promise<Held<undefined>> {
    const view = await tenantView(this.store, actorId);
    const target = adminOfTenant(view, id);
    if (target.removedAt === null && target.id !== view.actor.id) {
      if (ifRevision !== undefined && ifRevision !== target.revision) {
        throw new AppError('PRECONDITION_FAILED', `Admin ${id} was changed since that ETag was read; read it again`);
      }
      requireHeld(view, 'admins:manage');
      const proposal = await this.hold(view.actor, 'admin.remove', { adminId: id, revision: target.revision }, revisionTag(target), {
        summary: `Remove the admin ${target.displayName} (${id}): its wallets stop signing in, the admins below it move to the proposer`,
        target: id,
      });
      if (proposal !== undefined) return { proposal };
    }
    await this.admins.remove(actorId, id, ifRevision);
    return ran(undefined);
  }

  async addWallet(actorId: string, id: string, proof: WalletProof): Promise<Held<AdminWallet>> {
    const view = await tenantView(this.store, actorId);
    if (!(await this.proposals.holds('wallet.add', view.actor.tenantId, null))) return ran(await this.admins.addWallet(actorId, id, proof));
    const target = adminOfTenant(view, id);
    const proven = await this.admins.proveWallet(actorId, id, proof);
    const { wallet } = proven;
    const proposal = await this.hold(
      view.actor,
      'wallet.add',
      { adminId: id, wallet },
      revisionTag(target),
      { summary: `Add the wallet ${wallet} to the admin ${target.displayName} (${id}): it will sign in as that admin`, target: id },
      // The proof is used up by the proposal it becomes, in the transaction that records it.
      proven.use,
    );
    if (proposal !== undefined) return { proposal };
    return ran(await this.admins.addProvenWallet(actorId, id, wallet, undefined, proven.use));
  }

  async createInvitation(actorId: string, request: NewInvitationRequest): Promise<Held<IssuedInvitation>> {
    const view = await tenantView(this.store, actorId);
    if (await this.grantsApprover(view.actor.tenantId, request.permissions, false)) {
      requireHeld(view, 'admins:manage');
      requireGrantable(view, request.permissions);
      const proposal = await this.hold(view.actor, 'invitation.create', { request }, requestTag(request), {
        summary: `Invite ${request.displayName ?? 'someone'}${request.wallet ? ` (${request.wallet})` : ''} with ${describePermissions(request.permissions, false)}`,
        target: request.wallet?.toLowerCase() ?? '',
      });
      if (proposal !== undefined) return { proposal };
    }
    return ran(await this.invitations.create(actorId, request));
  }

  /** Whether granting these makes an approver: an owner, or a permission some rule of the tenant counts. */
  private async grantsApprover(tenantId: string, permissions: readonly string[], owner: boolean): Promise<boolean> {
    const counted = countedPermissions(await this.store.listPolicies(tenantId));
    if (counted.size === 0) return false;
    return owner || permissions.some((p) => counted.has(p));
  }

  private hold(
    actor: Admin,
    operation: HeldOperation,
    plan: Record<string, unknown>,
    planEtag: string,
    shown: { summary: string; target: string },
    withProposal?: HeldRequest['withProposal'],
  ) {
    const request: HeldRequest = {
      operation,
      tenantId: actor.tenantId,
      channelId: null,
      proposerId: actor.id,
      plan,
      planEtag,
      summary: shown.summary,
      intent: { target: shown.target },
      withProposal,
    };
    return this.proposals.hold(request);
  }

  private async currentEtag(proposal: Proposal): Promise<string> {
    if (proposal.operation === 'admin.create' || proposal.operation === 'invitation.create') {
      return requestTag(proposal.plan.request as Record<string, unknown>);
    }
    const admin = await this.store.getAdmin(proposal.plan.adminId as string);
    if (admin === undefined || admin.removedAt !== null)
      throw new AppError('ADMIN_REMOVED', `Admin ${String(proposal.plan.adminId)} was removed meanwhile`);
    return revisionTag(admin);
  }
}

const revisionTag = (admin: Pick<Admin, 'revision'>): string => `"r${admin.revision}"`;

/** What a change of an admin's record, wallets or links is logged as: a run acting on that admin is void when another hand made one. */
const ACTING_ON_AN_ADMIN = [
  'admin.update',
  'admin.remove',
  'admin.sign-out',
  'wallet.add',
  'wallet.remove',
  'channel.link',
  'channel.unlink',
];

/** The invitation an invitation entry names. */
function invitationIdOf(entry: AuditEvent): string | undefined {
  const record = (entry.change?.after ?? entry.change?.before) as { id?: unknown } | null | undefined;
  return typeof record?.id === 'string' ? record.id : undefined;
}

/** A request that acts on nothing stored yet is its own plan: its tag is its hash. */
const requestTag = (request: object): string => `"${createHash('sha256').update(canonicalPlan(request)).digest('hex')}"`;

function describePermissions(permissions: readonly string[], owner: boolean | undefined): string {
  if (owner === true) return 'every permission (an owner)';
  return permissions.length === 0 ? 'no permission' : permissions.join(', ');
}
