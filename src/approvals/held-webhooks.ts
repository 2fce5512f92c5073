import { createHash } from 'node:crypto';
import type { RunLease } from '../model/actors.ts';
import type { HeldOperation, Proposal } from '../model/approvals.ts';
import type { WebhookChanges } from '../model/events.ts';
import type {
  CreatedWebhook,
  NewWebhookRequest,
  PlannedWebhook,
  RotatedSecret,
  WebhookChangeRequest,
  WebhookService,
} from '../webhooks/webhook-service.ts';
import type { WebhookView } from '../webhooks/webhook-views.ts';
import { canonicalPlan } from './canonical-plan.ts';
import { type Held, ran } from './held.ts';
import type { ProposalService } from './proposal-service.ts';

/**
 * Webhooks under the policies (docs/events.md, "Under a policy"): creating, changing (a pause, new
 * filters or URL, a rotated secret) and deleting a webhook are operations a tenant policy may hold,
 * so that a stolen owner key alone cannot blind the tenant's SIEM nor send its events elsewhere.
 * The request is checked when it is made and its URL sealed into the plan (a URL may carry
 * credentials: the plan shows it redacted); the webhook's revision is the plan's ETag.
 */
export class HeldWebhooks {
  constructor(
    private readonly proposals: ProposalService,
    private readonly webhooks: WebhookService,
  ) {
    const revisionOf = async (proposal: Proposal) => {
      const { webhook } = await this.webhooks.managed(proposal.proposedBy, proposal.plan.webhookId as string);
      return revisionTag(webhook.revision);
    };
    proposals.register('webhook.create', {
      currentEtag: async (proposal) => planTag(proposal.plan.webhook as object),
      run: (proposal, _intents, lease) => this.runCreate(proposal, lease),
      actsOn: () => undefined,
      // A creation whose run died after it committed took its secret with it: the webhook gets a new
      // one (a change of its own), so that the proposer still receives a secret that signs.
      resume: async (proposal, _intents, lease, own) => {
        const planned = proposal.plan.webhook as PlannedWebhook;
        if (!own.some((e) => e.action === 'webhook.create')) return this.runCreate(proposal, lease);
        const rotated = await this.webhooks.rotate(proposal.proposedBy, planned.id, undefined, lease);
        return { webhookId: planned.id, secret: rotated.secret };
      },
    });
    const once = (operation: HeldOperation, action: string, run: (p: Proposal, lease: RunLease) => Promise<Record<string, unknown>>) =>
      proposals.register(operation, {
        currentEtag: revisionOf,
        run: (proposal, _intents, lease) => run(proposal, lease),
        actsOn: () => undefined,
        resume: async (proposal, _intents, lease, own) =>
          own.some((e) => e.action === action) ? { webhookId: proposal.plan.webhookId as string } : run(proposal, lease),
      });
    once('webhook.change', 'webhook.change', async (p, lease) => {
      const id = p.plan.webhookId as string;
      if (p.plan.rotateSecret === true) {
        const rotated = await this.webhooks.rotate(p.proposedBy, id, p.plan.revision as number, lease);
        return { webhookId: id, secret: rotated.secret, previousSecretValidUntil: rotated.previousSecretValidUntil };
      }
      await this.webhooks.update(p.proposedBy, id, p.plan.changes as WebhookChanges, p.plan.revision as number, lease);
      return { webhookId: id };
    });
    once('webhook.delete', 'webhook.delete', async (p, lease) => {
      await this.webhooks.remove(p.proposedBy, p.plan.webhookId as string, p.plan.revision as number, lease);
      return { webhookId: p.plan.webhookId as string, deleted: true };
    });
  }

  async create(actorId: string, request: NewWebhookRequest): Promise<Held<CreatedWebhook>> {
    const planned = await this.webhooks.plan(actorId, request);
    const tenantId = await this.tenantOf(actorId);
    if (await this.proposals.holds('webhook.create', tenantId, null)) {
      const proposal = await this.hold(actorId, tenantId, 'webhook.create', { webhook: planned }, planTag(planned), {
        summary: `Create a webhook to ${planned.urlShown}${describeFilters(planned)}`,
        target: planned.urlShown,
      });
      if (proposal !== undefined) return { proposal };
    }
    return ran(await this.webhooks.create(actorId, planned));
  }

  async update(actorId: string, id: string, request: WebhookChangeRequest): Promise<Held<WebhookView>> {
    const changes = await this.webhooks.planChange(actorId, id, request);
    const { view, webhook } = await this.webhooks.managed(actorId, id);
    if (await this.proposals.holds('webhook.change', view.actor.tenantId, null)) {
      const proposal = await this.hold(
        actorId,
        view.actor.tenantId,
        'webhook.change',
        { webhookId: id, revision: webhook.revision, changes },
        revisionTag(webhook.revision),
        {
          summary: `Change the webhook to ${webhook.urlShown} (${id}): ${Object.keys(request).join(', ')}`,
          target: id,
        },
      );
      if (proposal !== undefined) return { proposal };
    }
    return ran(await this.webhooks.update(actorId, id, changes, webhook.revision));
  }

  async rotate(actorId: string, id: string): Promise<Held<RotatedSecret>> {
    const { view, webhook } = await this.webhooks.managed(actorId, id);
    if (await this.proposals.holds('webhook.change', view.actor.tenantId, null)) {
      const proposal = await this.hold(
        actorId,
        view.actor.tenantId,
        'webhook.change',
        { webhookId: id, revision: webhook.revision, rotateSecret: true },
        revisionTag(webhook.revision),
        {
          summary: `Rotate the signing secret of the webhook to ${webhook.urlShown} (${id})`,
          target: id,
        },
      );
      if (proposal !== undefined) return { proposal };
    }
    return ran(await this.webhooks.rotate(actorId, id, webhook.revision));
  }

  async remove(actorId: string, id: string): Promise<Held<undefined>> {
    const { view, webhook } = await this.webhooks.managed(actorId, id);
    if (await this.proposals.holds('webhook.delete', view.actor.tenantId, null)) {
      const proposal = await this.hold(
        actorId,
        view.actor.tenantId,
        'webhook.delete',
        { webhookId: id, revision: webhook.revision },
        revisionTag(webhook.revision),
        {
          summary: `Delete the webhook to ${webhook.urlShown} (${id}): its receiver gets no more events`,
          target: id,
        },
      );
      if (proposal !== undefined) return { proposal };
    }
    await this.webhooks.remove(actorId, id, webhook.revision);
    return ran(undefined);
  }

  private async runCreate(proposal: Proposal, lease: RunLease): Promise<Record<string, unknown>> {
    const created = await this.webhooks.create(proposal.proposedBy, proposal.plan.webhook as PlannedWebhook, lease);
    return { webhookId: created.webhook.id, secret: created.secret };
  }

  private async tenantOf(actorId: string): Promise<string> {
    return this.webhooks.managerTenant(actorId);
  }

  private hold(
    actorId: string,
    tenantId: string,
    operation: HeldOperation,
    plan: Record<string, unknown>,
    planEtag: string,
    shown: { summary: string; target: string },
  ) {
    return this.proposals.hold({
      operation,
      tenantId,
      channelId: null,
      proposerId: actorId,
      plan,
      planEtag,
      summary: shown.summary,
      intent: { target: shown.target },
    });
  }
}

const revisionTag = (revision: number): string => `"r${revision}"`;
const planTag = (plan: object): string => `"${createHash('sha256').update(canonicalPlan(plan)).digest('hex')}"`;

function describeFilters(planned: PlannedWebhook): string {
  const parts = [
    planned.types.length > 0 ? `types ${planned.types.join(', ')}` : 'every type',
    planned.channels.length > 0 ? `channels ${planned.channels.join(', ')}` : '',
    planned.folders.length > 0 ? `folders ${planned.folders.join(', ')}` : '',
    `results ${planned.results.join(', ')}`,
    planned.from === 'start' ? 'from the start of the chain' : '',
  ].filter((p) => p !== '');
  return ` (${parts.join('; ')})`;
}
