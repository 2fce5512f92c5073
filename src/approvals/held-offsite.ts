import type { RunLease } from '../model/actors.ts';
import type { Proposal } from '../model/approvals.ts';
import type { PlannedTarget, TenantOffsiteRequest, TenantOffsiteService } from '../offsite/tenant/tenant-offsite-service.ts';
import type { TenantOffsiteView } from '../offsite/tenant/tenant-offsite-views.ts';
import { type Held, ran } from './held.ts';
import type { ProposalService } from './proposal-service.ts';

/**
 * A tenant's own off-site target under the policies (docs/offsite.md, "A tenant's own copy"):
 * setting, changing and removing it is `offsite.change`, which a tenant policy may hold, since it
 * decides where the tenant's data goes. The request is checked when it is made and its secret
 * sealed into the plan; the target's revision (0: none set) is the plan's ETag, so an approval of
 * a change made against another target changes nothing.
 */
export class HeldOffsite {
  constructor(
    private readonly proposals: ProposalService,
    private readonly offsite: TenantOffsiteService,
  ) {
    proposals.register('offsite.change', {
      currentEtag: async (proposal) => revisionTag(await this.revisionOf(proposal.tenantId)),
      run: (proposal, _intents, lease) => this.run(proposal, lease),
      actsOn: () => undefined,
      resume: async (proposal, _intents, lease, own) =>
        own.some((e) => e.action === 'offsite.change') ? { changed: true } : this.run(proposal, lease),
    });
  }

  async set(actorId: string, request: TenantOffsiteRequest): Promise<Held<TenantOffsiteView>> {
    const planned = await this.offsite.plan(actorId, request);
    const tenantId = await this.offsite.managerTenant(actorId);
    const revision = await this.revisionOf(tenantId);
    if (await this.proposals.holds('offsite.change', tenantId, null)) {
      const proposal = await this.proposals.hold({
        operation: 'offsite.change',
        tenantId,
        channelId: null,
        proposerId: actorId,
        plan: { set: planned, revision },
        planEtag: revisionTag(revision),
        summary: `Ship the tenant's own off-site copy to ${planned.url}${planned.endpoint ? ` at ${planned.endpoint}` : ''}, encrypted to ${planned.recipients.length} recipient${planned.recipients.length === 1 ? '' : 's'}`,
        intent: { target: planned.url },
      });
      if (proposal !== undefined) return { proposal };
    }
    return ran(await this.offsite.set(actorId, planned, revision));
  }

  async remove(actorId: string): Promise<Held<undefined>> {
    const tenantId = await this.offsite.managerTenant(actorId);
    const current = await this.offsite.current(tenantId);
    if (await this.proposals.holds('offsite.change', tenantId, null)) {
      const proposal = await this.proposals.hold({
        operation: 'offsite.change',
        tenantId,
        channelId: null,
        proposerId: actorId,
        plan: { remove: true, revision: current.revision },
        planEtag: revisionTag(current.revision),
        summary: `Stop shipping the tenant's own off-site copy to ${current.url} (nothing there is deleted)`,
        intent: { target: current.url },
      });
      if (proposal !== undefined) return { proposal };
    }
    await this.offsite.remove(actorId, current.revision);
    return ran(undefined);
  }

  private async run(proposal: Proposal, lease: RunLease): Promise<Record<string, unknown>> {
    const revision = proposal.plan.revision as number;
    if (proposal.plan.remove === true) {
      await this.offsite.remove(proposal.proposedBy, revision, lease);
      return { removed: true };
    }
    const view = await this.offsite.set(proposal.proposedBy, proposal.plan.set as PlannedTarget, revision, lease);
    return { url: view.url, revision: view.revision };
  }

  private async revisionOf(tenantId: string): Promise<number> {
    return this.offsite.current(tenantId).then(
      (target) => target.revision,
      () => 0,
    );
  }
}

const revisionTag = (revision: number): string => `"r${revision}"`;
