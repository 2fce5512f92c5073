import { isOwner } from '../administration/admin-rules.ts';
import type { AdministrationAudit } from '../administration/administration-audit.ts';
import { tenantView } from '../administration/tenant-views.ts';
import { AppError } from '../errors/app-error.ts';
import type { RunLease } from '../model/actors.ts';
import type { AdminRecords } from '../model/admins.ts';
import type { ApprovalRecords, Policy, PolicyRule, Proposal } from '../model/approvals.ts';
import type { Channel, ChannelLookup } from '../model/channels.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { type Held, ran } from './held.ts';
import { checkRules, requireSatisfiable } from './policy-rules.ts';
import type { ProposalService } from './proposal-service.ts';

type Store = ApprovalRecords & Pick<AdminRecords, 'getAdmin' | 'listAdmins'> & ChannelLookup & Pick<MetadataStore, 'atomically'>;

/**
 * A tenant's policy and its channels' (docs/approvals.md). Reading one is open to the tenant's
 * admins; a change is refused when no set of admins could ever meet a rule (POLICY_UNSATISFIABLE),
 * and is itself held by the policy it changes (policy.change), so that a stolen key cannot drop a rule alone.
 */
export class PolicyService {
  constructor(
    private readonly proposals: ProposalService,
    private readonly store: Store,
    private readonly audit: AdministrationAudit,
    private readonly now: () => number = Date.now,
  ) {
    const run = async (proposal: Proposal, lease: RunLease) => {
      const rules = proposal.plan.rules as PolicyRule[];
      const policy = await this.write(proposal.proposedBy, proposal.channelId, rules, proposal.plan.revision as number, lease);
      return { revision: policy.revision };
    };
    proposals.register('policy.change', {
      currentEtag: async (proposal) => policyTag(await this.store.getPolicy(proposal.tenantId, proposal.channelId)),
      run: (proposal, _intents, lease) => run(proposal, lease),
      actsOn: (proposal) => ({ actions: ['policy.change'], channelId: proposal.channelId }),
      resume: async (proposal, _intents, lease, own) => {
        const made = own.find((e) => e.action === 'policy.change');
        if (made === undefined) return run(proposal, lease);
        return { revision: (await this.store.getPolicy(proposal.tenantId, proposal.channelId)).revision };
      },
    });
  }

  async get(actorId: string, channel: Channel | null): Promise<Policy> {
    const view = await tenantView(this.store, actorId);
    return this.store.getPolicy(view.actor.tenantId, channel?.id ?? null);
  }

  /**
   * Replaces the tenant's rules (`channel` null: an owner only) or a channel's. `ifRevision` is
   * If-Match's policy revision. Held (a proposal) when the current policy guards its own change.
   */
  async put(
    actorId: string,
    channel: Channel | null,
    requested: readonly PolicyRule[] | undefined,
    ifRevision?: number,
  ): Promise<Held<Policy>> {
    const view = await tenantView(this.store, actorId);
    if (requested === undefined) throw new AppError('VALIDATION_FAILED', 'rules is required: the whole list of rules, [] for none');
    if (channel === null && !isOwner(view.actor)) {
      throw new AppError('OWNER_REQUIRED', "Only an owner sets the tenant's policy");
    }
    const rules = checkRules(requested, channel === null ? 'tenant' : 'channel');
    requireSatisfiable(rules, view.admins, channel?.id ?? null);
    const current = await this.store.getPolicy(view.actor.tenantId, channel?.id ?? null);
    if (ifRevision !== undefined && ifRevision !== current.revision) {
      throw new AppError('PRECONDITION_FAILED', 'The policy was changed since that ETag was read; read it again', {
        currentEtag: policyTag(current),
      });
    }
    const proposal: Proposal | undefined = await this.proposals.hold({
      operation: 'policy.change',
      tenantId: view.actor.tenantId,
      channelId: channel?.id ?? null,
      proposerId: view.actor.id,
      plan: { rules, revision: current.revision },
      planEtag: policyTag(current),
      summary: `Set the ${channel === null ? "tenant's" : `channel ${channel.name}'s`} policy to ${describeRules(rules)} (was ${describeRules(current.rules)})`,
      intent: { target: channel === null ? 'tenant policy' : `channel policy ${channel.id}` },
    });
    if (proposal !== undefined) return { proposal };
    return ran(await this.write(view.actor.id, channel?.id ?? null, rules, current.revision));
  }

  private async write(actorId: string, channelId: string | null, rules: PolicyRule[], revision: number, run?: RunLease): Promise<Policy> {
    const view = await tenantView(this.store, actorId);
    return this.store.atomically(async (tx) => {
      const before = await tx.getPolicy(view.actor.tenantId, channelId);
      const policy = await tx.putPolicy(view.actor.tenantId, channelId, rules, actorId, this.now(), revision);
      await this.audit.append(tx.files, {
        tenantId: policy.tenantId,
        adminId: actorId,
        run,
        action: 'policy.change',
        channelId: policy.channelId,
        before: { rules: before.rules, revision: before.revision },
        after: { rules: policy.rules, revision: policy.revision },
      });
      return policy;
    });
  }
}

/** A policy's ETag: its revision ("p0" for one never set). */
export const policyTag = (policy: Pick<Policy, 'revision'>): string => `"p${policy.revision}"`;

function describeRules(rules: readonly PolicyRule[]): string {
  if (rules.length === 0) return 'no rules';
  return rules.map((r) => `${r.operation} needs ${r.approvals} of the admins with ${r.permission}`).join('; ');
}
