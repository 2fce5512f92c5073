import { AdministrationAudit } from '../../administration/administration-audit.ts';
import { AppError } from '../../errors/app-error.ts';
import { tenantNotFound } from '../../errors/common-errors.ts';
import type { WebhookRecord } from '../../model/events.ts';
import type { MetadataStore } from '../../model/metadata-store.ts';
import { webhookViewOf } from '../../webhooks/webhook-service.ts';
import { deliveryView, type WebhookView, webhookSnapshot } from '../../webhooks/webhook-views.ts';
import type { CommandContext, CommandResult } from '../command.ts';
import { optionalString, stringOption } from '../command.ts';
import { pageRequestOf, pageText } from '../paging.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';
import { deliveryLine, webhookDetails, webhookLine } from '../webhook-views.ts';
import { statusOption } from './webhook-options.ts';

/*
 * The webhook commands on the metadata store, as the operator on the service's machine: every
 * tenant's webhooks read as the API shows them (never a secret: the URL as redacted when it was
 * set, nothing unsealed, so no SECRETS_KEY is needed), and a webhook paused or resumed, its entry
 * in the tenant's chain committed with the change. Loaded only by the commands that run here.
 */

async function webhookNamed(store: Pick<MetadataStore, 'events'>, id: string): Promise<WebhookRecord> {
  const webhook = await store.events.getWebhook(id);
  if (webhook === undefined) throw new AppError('WEBHOOK_NOT_FOUND', `No webhook ${id} (see: wallet-admin webhook list)`);
  return webhook;
}

/** A view's JSON as the API's, with its tenant: the operator sees every tenant's at once. */
const viewJson = (view: WebhookView, tenantId: string) => ({ ...view, tenantId });

export async function listWebhooksLocally({ values, store }: CommandContext): Promise<CommandResult> {
  const s = await store();
  const tenantId = optionalString(values, 'tenant');
  if (tenantId !== undefined && !(await s.getTenant(tenantId))) throw tenantNotFound(tenantId);
  const webhooks = (await s.events.allWebhooks()).filter((w) => tenantId === undefined || w.tenantId === tenantId);
  const views = await Promise.all(webhooks.map((w) => webhookViewOf(s, w)));
  const lines = views.map((view, i) => terminalText`${webhooks[i]!.tenantId}  ${webhookLine(view)}`);
  return {
    json: { items: views.map((view, i) => viewJson(view, webhooks[i]!.tenantId)) },
    text: lines.length > 0 ? terminalLines(lines) : terminalText`No webhooks`,
  };
}

export async function showWebhookLocally({ values, store }: CommandContext): Promise<CommandResult> {
  const s = await store();
  const webhook = await webhookNamed(s, stringOption(values, 'id'));
  const view = await webhookViewOf(s, webhook);
  return {
    json: viewJson(view, webhook.tenantId),
    text: terminalLines([webhookDetails(view), terminalText`  Tenant: ${webhook.tenantId}`]),
  };
}

export async function listDeliveriesLocally({ values, store }: CommandContext): Promise<CommandResult> {
  const s = await store();
  const webhook = await webhookNamed(s, stringOption(values, 'id'));
  const page = await s.events.listDeliveries(webhook.id, pageRequestOf(values), statusOption(values));
  const items = page.items.map(deliveryView);
  return { json: { items, next: page.next }, text: pageText(items.map(deliveryLine), page, terminalText`No deliveries`) };
}

/**
 * Pauses or resumes a webhook as the operator: the change and its `webhook.change` entry (no
 * admin, the operator's label, the snapshots an admin's change records) commit in one transaction,
 * as DirectoryChanges does for the directory. The entry names the webhook's creator, as an admin's
 * change does, so that a sub-admin's view of the log shows what was done to its webhook. A webhook
 * that is so already changes nothing and records nothing. Running services see it at their next look.
 */
export function pauseLocally(paused: boolean) {
  return async ({ values, store, operator }: CommandContext): Promise<CommandResult> => {
    const s = await store();
    const audit = new AdministrationAudit(s.files);
    const id = stringOption(values, 'id');
    const { webhook, changed } = await s.atomically(async (tx) => {
      const before = await webhookNamed(tx, id);
      if (before.paused === paused) return { webhook: before, changed: false };
      const at = Date.now();
      // The revision read is the one changed: an admin's change that committed meanwhile is not overwritten.
      if (!(await tx.events.updateWebhook(id, before.revision, { paused }, at))) {
        throw new AppError('PRECONDITION_FAILED', `Webhook ${id} was changed meanwhile; run the command again`);
      }
      const after: WebhookRecord = { ...before, paused, revision: before.revision + 1, updatedAt: at };
      await audit.append(tx.files, {
        tenantId: before.tenantId,
        ...operator,
        action: 'webhook.change',
        targetAdminId: before.createdBy,
        before: webhookSnapshot(before),
        after: webhookSnapshot(after),
      });
      return { webhook: after, changed: true };
    });
    const view = await webhookViewOf(s, webhook);
    const done = paused ? 'Paused' : 'Resumed';
    const already = paused ? 'paused already' : 'not paused';
    return {
      json: { ...viewJson(view, webhook.tenantId), changed },
      text: changed
        ? terminalText`${done} webhook ${webhookLine(view)}`
        : terminalText`Webhook ${id} is ${already}: nothing changed, nothing recorded`,
    };
  };
}
