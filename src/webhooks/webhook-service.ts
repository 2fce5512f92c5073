import { adminsBelow, holds, isOwner, requireHeld, type TenantView } from '../administration/admin-rules.ts';
import type { AdministrationAudit } from '../administration/administration-audit.ts';
import { heldChannel, tenantView } from '../administration/tenant-views.ts';
import type { DeliveryConfig } from '../config/events-config.ts';
import { AppError } from '../errors/app-error.ts';
import type { Destination } from '../events/dispatcher.ts';
import { outgoingEvent } from '../events/event-envelope.ts';
import { checkResults, checkTypes, type EventVisibility, MAX_FILTER_ITEMS } from '../events/event-filter.ts';
import { newWebhookSecret } from '../events/webhook-signature.ts';
import type { RunLease } from '../model/actors.ts';
import type { Admin } from '../model/admins.ts';
import type { AuditResult } from '../model/audit.ts';
import type { DeliveryStatus, WebhookChanges, WebhookRecord } from '../model/events.ts';
import { newWebhookId } from '../model/ids.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import type { OutboundAllow } from '../outbound/outbound-allow.ts';
import { checkOutboundUrl, redactUrl } from '../outbound/outbound-guard.ts';
import { requireSecretBox } from '../secrets/open-secret-box.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import {
  previousSecretContext,
  type SendDeps,
  secretContext,
  sendToWebhook,
  urlContext,
  webhookDestination,
} from './webhook-destination.ts';
import { type DeliveryView, deliveryView, type WebhookView, webhookSnapshot, webhookView } from './webhook-views.ts';

/** What a webhook is asked to be (POST /api/webhooks); the members a PATCH may change. */
export interface NewWebhookRequest {
  url: string;
  types?: string[] | undefined;
  channels?: string[] | undefined;
  folders?: string[] | undefined;
  results?: string[] | undefined;
  /** head (the default): events from now on; start: the tenant's whole chain first. */
  from?: 'head' | 'start' | undefined;
}

export interface WebhookChangeRequest {
  url?: string | undefined;
  types?: string[] | undefined;
  channels?: string[] | undefined;
  folders?: string[] | undefined;
  results?: string[] | undefined;
  paused?: boolean | undefined;
}

/** A webhook just made, with its secret: shown this once, never again. */
export interface CreatedWebhook {
  webhook: WebhookView;
  secret: string;
}

export interface RotatedSecret {
  id: string;
  secret: string;
  previousSecretValidUntil: string;
}

export interface TestResult {
  delivered: boolean;
  status: number | null;
  latencyMs: number;
  error: string | null;
  excerpt: string | null;
}

/** A webhook made ready to store, before it runs (a held creation is planned with it). */
export interface PlannedWebhook {
  id: string;
  urlSealed: string;
  urlShown: string;
  types: string[];
  channels: string[];
  folders: string[];
  results: AuditResult[];
  from: 'head' | 'start';
}

type Store = Pick<MetadataStore, 'getAdmin' | 'listAdmins' | 'getChannel' | 'findChannelsNamed' | 'atomically' | 'events' | 'files'>;

const MAX_URL_LENGTH = 2048;
/**
 * Webhooks one tenant may have: each is looked at on every poll by every instance, so their number
 * is what a tenant could otherwise grow without bound (Stripe allows 16 endpoints, GitHub 20 hooks).
 */
export const MAX_WEBHOOKS_PER_TENANT = 20;

/**
 * A tenant's webhooks (docs/events.md, "Webhooks"), for holders of webhooks:manage: made, listed,
 * changed, paused, tested, their secrets rotated, their delivery logs read and a dead delivery
 * retried. An owner manages every webhook of its tenant; another admin, those it made. Each change
 * commits with its audit entry (webhook.create, webhook.change, webhook.delete), which names the
 * URL redacted and never a secret. A webhook carries what its creator may read in the tenant's
 * audit log, and nothing while its creator is suspended, removed or without audit:read.
 */
export class WebhookService {
  constructor(
    private readonly deps: {
      store: Store;
      audit: AdministrationAudit;
      box: SecretBox | undefined;
      allow: OutboundAllow;
      settings: DeliveryConfig;
      now?: () => number;
      lookup?: SendDeps['lookup'];
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Checks a request and seals its URL: what a creation runs with, now or once its proposal is approved. */
  async plan(actorId: string, request: NewWebhookRequest): Promise<PlannedWebhook> {
    const view = await this.managerView(actorId);
    requireReader(view.actor);
    const box = requireSecretBox(this.deps.box);
    await this.requireRoom(view.actor.tenantId);
    // The filters first: they need no network, and a typo among them is the likelier mistake.
    const types = checkTypes(list('types', request.types));
    const channels = await this.channelIds(view, list('channels', request.channels));
    const named = folders(request.folders);
    const results = checkResults(request.results ?? ['ok']);
    const url = await this.checkUrl(request.url);
    const id = newWebhookId();
    return {
      id,
      urlSealed: box.seal(url, urlContext(id)),
      urlShown: redactUrl(url),
      types,
      channels,
      folders: named,
      results,
      from: request.from ?? 'head',
    };
  }

  async create(actorId: string, planned: PlannedWebhook, lease?: RunLease): Promise<CreatedWebhook> {
    const view = await this.managerView(actorId);
    requireReader(view.actor);
    const box = requireSecretBox(this.deps.box);
    await this.requireRoom(view.actor.tenantId);
    const secret = newWebhookSecret();
    const now = this.now();
    const webhook: WebhookRecord = {
      id: planned.id,
      tenantId: view.actor.tenantId,
      createdBy: view.actor.id,
      urlSealed: planned.urlSealed,
      urlShown: planned.urlShown,
      types: planned.types,
      channels: planned.channels,
      folders: planned.folders,
      results: planned.results,
      paused: false,
      secretSealed: box.seal(secret, secretContext(planned.id)),
      previousSecretSealed: null,
      previousSecretUntil: null,
      secretRotatedAt: null,
      revision: 1,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.atomically(async (tx) => {
      // Its own entry is the head it starts after: a webhook made "from now on" carries the next
      // change, not its own creation; from the start, the whole chain, its creation included.
      await this.deps.audit.append(tx.files, this.entry(view.actor, 'webhook.create', null, webhookSnapshot(webhook), lease));
      const head = await tx.files.auditHead(view.actor.tenantId);
      await tx.events.insertWebhook(webhook, planned.from === 'start' ? 0 : head.seq);
    });
    return { webhook: await this.viewOf(webhook), secret };
  }

  async list(actorId: string, page: PageRequest): Promise<Page<WebhookView>> {
    const view = await this.managerView(actorId);
    const listed = await this.deps.store.events.listWebhooks(view.actor.tenantId, page);
    const mine = listed.items.filter((w) => canManage(view, w));
    return { items: await Promise.all(mine.map((w) => this.viewOf(w))), next: listed.next };
  }

  async get(actorId: string, id: string): Promise<WebhookView> {
    const { webhook } = await this.managed(actorId, id);
    return this.viewOf(webhook);
  }

  /** The webhook `id` as its manager `actorId` may change it, and the revision a held change is planned on. */
  async managed(actorId: string, id: string): Promise<{ view: TenantView; webhook: WebhookRecord }> {
    const view = await this.managerView(actorId);
    const webhook = await this.deps.store.events.getWebhook(id);
    if (webhook === undefined || webhook.tenantId !== view.actor.tenantId || !canManage(view, webhook)) {
      throw new AppError('WEBHOOK_NOT_FOUND', `No webhook ${id} in this tenant that this admin manages`);
    }
    return { view, webhook };
  }

  /** Checks a change and seals a new URL: what a change runs with, now or once approved. */
  async planChange(actorId: string, id: string, request: WebhookChangeRequest): Promise<WebhookChanges> {
    const { view, webhook } = await this.managed(actorId, id);
    const changes: WebhookChanges = {};
    if (request.url !== undefined) {
      const url = await this.checkUrl(request.url);
      changes.urlSealed = requireSecretBox(this.deps.box).seal(url, urlContext(webhook.id));
      changes.urlShown = redactUrl(url);
    }
    if (request.types !== undefined) changes.types = checkTypes(list('types', request.types));
    if (request.channels !== undefined) changes.channels = await this.channelIds(view, list('channels', request.channels));
    if (request.folders !== undefined) changes.folders = folders(request.folders);
    if (request.results !== undefined) changes.results = checkResults(request.results);
    if (request.paused !== undefined) changes.paused = request.paused;
    if (Object.keys(changes).length === 0) {
      throw new AppError(
        'VALIDATION_FAILED',
        'A webhook change names url, types, channels, folders, results or paused; this one names none',
      );
    }
    return changes;
  }

  async update(actorId: string, id: string, changes: WebhookChanges, revision?: number, lease?: RunLease): Promise<WebhookView> {
    const { view, webhook } = await this.managed(actorId, id);
    if (revision !== undefined && revision !== webhook.revision) {
      throw new AppError('PRECONDITION_FAILED', `Webhook ${id} was changed since; read it again`);
    }
    const now = this.now();
    const after: WebhookRecord = { ...webhook, ...changes, revision: webhook.revision + 1, updatedAt: now };
    await this.deps.store.atomically(async (tx) => {
      if (!(await tx.events.updateWebhook(id, webhook.revision, changes, now))) {
        throw new AppError('PRECONDITION_FAILED', `Webhook ${id} was changed meanwhile by another request; read it again`);
      }
      await this.deps.audit.append(
        tx.files,
        this.entry(view.actor, 'webhook.change', webhookSnapshot(webhook), webhookSnapshot(after), lease),
      );
    });
    return this.viewOf(after);
  }

  /** A new secret; the previous one keeps signing beside it for WEBHOOK_SECRET_GRACE. */
  async rotate(actorId: string, id: string, revision?: number, lease?: RunLease): Promise<RotatedSecret> {
    const { webhook } = await this.managed(actorId, id);
    const box = requireSecretBox(this.deps.box);
    const secret = newWebhookSecret();
    const now = this.now();
    const until = now + this.deps.settings.secretGraceSeconds * 1000;
    const current = box.open(webhook.secretSealed, secretContext(id));
    await this.update(
      actorId,
      id,
      {
        secretSealed: box.seal(secret, secretContext(id)),
        previousSecretSealed: box.seal(current, previousSecretContext(id)),
        previousSecretUntil: until,
        secretRotatedAt: now,
      },
      revision,
      lease,
    );
    return { id, secret, previousSecretValidUntil: new Date(until).toISOString() };
  }

  async remove(actorId: string, id: string, revision?: number, lease?: RunLease): Promise<void> {
    const { view, webhook } = await this.managed(actorId, id);
    if (revision !== undefined && revision !== webhook.revision) {
      throw new AppError('PRECONDITION_FAILED', `Webhook ${id} was changed since; read it again`);
    }
    await this.deps.store.atomically(async (tx) => {
      if (!(await tx.events.deleteWebhook(id))) throw new AppError('WEBHOOK_NOT_FOUND', `Webhook ${id} was deleted meanwhile`);
      await this.deps.audit.append(tx.files, this.entry(view.actor, 'webhook.delete', webhookSnapshot(webhook), null, lease));
    });
  }

  /** Posts a `webhook.test` event (outside the chain: it records nothing) and answers what came of it. */
  async test(actorId: string, id: string): Promise<TestResult> {
    const { webhook } = await this.managed(actorId, id);
    const now = this.now();
    const testId = `test_${now.toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
    const body = JSON.stringify({
      id: testId,
      type: 'webhook.test',
      tenantId: webhook.tenantId,
      time: new Date(now).toISOString(),
      data: { webhookId: webhook.id, message: 'A test event sent by POST /api/webhooks/{id}/test; it is not in the audit chain' },
    });
    const result = await sendToWebhook(webhook, { id: testId, body }, this.deps.settings.timeoutMs, this.sendDeps());
    return {
      delivered: result.ok,
      status: result.httpStatus,
      latencyMs: result.latencyMs,
      error: result.ok ? null : result.error,
      excerpt: result.excerpt ?? null,
    };
  }

  async deliveries(actorId: string, id: string, page: PageRequest, status?: DeliveryStatus): Promise<Page<DeliveryView>> {
    await this.managed(actorId, id);
    const listed = await this.deps.store.events.listDeliveries(id, page, status);
    return { items: listed.items.map(deliveryView), next: listed.next };
  }

  /**
   * A delivery tried again at once: a dead one is posted now, out of its channel's order (it was
   * skipped; its receiver asked for it again), and its log row says what came of it; a retrying one
   * has its next attempt made due now, keeping the order. A delivered one is refused.
   */
  async retry(actorId: string, id: string, deliveryId: string): Promise<DeliveryView> {
    const { webhook } = await this.managed(actorId, id);
    const { events } = this.deps.store;
    const delivery = await events.getDelivery(deliveryId);
    if (delivery === undefined || delivery.destination !== id) {
      throw new AppError('DELIVERY_NOT_FOUND', `No delivery ${deliveryId} of webhook ${id} (the log keeps EVENTS_LOG_DAYS of them)`);
    }
    if (delivery.status === 'delivered') {
      throw new AppError(
        'DELIVERY_DONE',
        `Delivery ${deliveryId} was delivered already: a receiver that lost it deduplicates by the event id`,
      );
    }
    if (delivery.status !== 'dead') {
      await events.retryNow(id, delivery.tenantId, delivery.channelKey, this.now());
      return deliveryView(delivery);
    }
    const [chained] = await events.channelAfter(delivery.tenantId, delivery.channelKey, delivery.seq - 1, 1);
    if (chained === undefined || chained.seq !== delivery.seq) {
      throw new AppError('DELIVERY_NOT_FOUND', `The event of delivery ${deliveryId} is no longer in the chain`);
    }
    const result = await sendToWebhook(webhook, outgoingEvent(chained), this.deps.settings.timeoutMs, this.sendDeps());
    const changes = {
      status: result.ok ? ('delivered' as const) : ('dead' as const),
      attempts: delivery.attempts + 1,
      httpStatus: result.httpStatus,
      error: result.error,
      latencyMs: result.latencyMs,
      updatedAt: this.now(),
    };
    await events.updateDelivery(deliveryId, changes);
    return deliveryView({ ...delivery, ...changes, nextAttemptAt: null });
  }

  /** Every webhook as the dispatcher delivers to it: the paused ones and those of creators who may read nothing left out. */
  async destinations(): Promise<Destination[]> {
    if (this.deps.box === undefined) return [];
    const webhooks = await this.deps.store.events.allWebhooks();
    const admins = new Map<string, Admin[]>();
    const destinations: Destination[] = [];
    for (const webhook of webhooks) {
      if (webhook.paused) continue;
      let tenantAdmins = admins.get(webhook.tenantId);
      if (tenantAdmins === undefined) {
        tenantAdmins = await this.deps.store.listAdmins(webhook.tenantId);
        admins.set(webhook.tenantId, tenantAdmins);
      }
      const creator = tenantAdmins.find((a) => a.id === webhook.createdBy);
      if (creator === undefined || stoppedReason(creator) !== null) continue;
      destinations.push(webhookDestination(webhook, visibilityOf(creator, tenantAdmins), this.deps.store.events, this.sendDeps()));
    }
    return destinations;
  }

  private sendDeps(): SendDeps {
    return { box: requireSecretBox(this.deps.box), allow: this.deps.allow, now: () => this.now(), lookup: this.deps.lookup };
  }

  private viewOf(webhook: WebhookRecord): Promise<WebhookView> {
    return webhookViewOf(this.deps.store, webhook);
  }

  private entry(
    actor: Admin,
    action: 'webhook.create' | 'webhook.change' | 'webhook.delete',
    before: Record<string, unknown> | null,
    after: Record<string, unknown> | null,
    lease?: RunLease,
  ) {
    return {
      tenantId: actor.tenantId,
      adminId: actor.id,
      action,
      // The webhook's creator: so that a sub-admin's own view of the log shows its webhooks' changes.
      targetAdminId: actor.id,
      before,
      after,
      run: lease,
    };
  }

  private async requireRoom(tenantId: string): Promise<void> {
    const existing = await this.deps.store.events.listWebhooks(tenantId, { limit: MAX_WEBHOOKS_PER_TENANT });
    if (existing.items.length >= MAX_WEBHOOKS_PER_TENANT) {
      throw new AppError(
        'WEBHOOK_LIMIT_REACHED',
        `This tenant has ${MAX_WEBHOOKS_PER_TENANT} webhooks, as many as a tenant may have: delete one, or widen the filters of one that exists`,
        { limit: MAX_WEBHOOKS_PER_TENANT },
      );
    }
  }

  /** The tenant of an admin who may manage webhooks (PERMISSION_DENIED otherwise). */
  async managerTenant(actorId: string): Promise<string> {
    return (await this.managerView(actorId)).actor.tenantId;
  }

  private async managerView(actorId: string): Promise<TenantView> {
    const view = await tenantView(this.deps.store, actorId);
    requireHeld(view, 'webhooks:manage');
    return view;
  }

  private async checkUrl(url: string): Promise<string> {
    if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
      throw new AppError('VALIDATION_FAILED', `url must be an https:// URL of at most ${MAX_URL_LENGTH} characters`);
    }
    // Checked now, so that a URL the service will never reach is refused when it is set; checked
    // again at every delivery, since a name may resolve elsewhere later.
    await checkOutboundUrl(url, this.deps.allow, this.deps.lookup);
    return url;
  }

  private async channelIds(view: TenantView, refs: readonly string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const ref of refs) ids.push((await heldChannel(this.deps.store, view, ref)).id);
    return [...new Set(ids)];
  }
}

function list(name: string, values: readonly string[] | undefined): string[] {
  if (values === undefined) return [];
  if (values.length > MAX_FILTER_ITEMS) throw new AppError('VALIDATION_FAILED', `${name} may name at most ${MAX_FILTER_ITEMS} items`);
  return [...values];
}

function folders(values: readonly string[] | undefined): string[] {
  const named = list('folders', values);
  for (const folder of named) {
    if (folder.length === 0 || folder.length > 255 || folder.includes('/')) {
      throw new AppError(
        'VALIDATION_FAILED',
        `folders names ${JSON.stringify(folder.slice(0, 80))}: a folder name is 1 to 255 characters without /`,
      );
    }
  }
  return [...new Set(named)];
}

const canManage = (view: TenantView, webhook: WebhookRecord): boolean => isOwner(view.actor) || webhook.createdBy === view.actor.id;

/** A webhook carries the tenant's audit log as its creator may read it: so its creator must hold audit:read. */
function requireReader(actor: Admin): void {
  if (!holds(actor, 'audit:read')) {
    throw new AppError('PERMISSION_DENIED', 'A webhook carries the audit log its creator may read: this admin lacks audit:read');
  }
}

/** A webhook as the API answers it: its state, how far it has delivered, its last delivery (the CLI's local view too). */
export async function webhookViewOf(
  store: Pick<MetadataStore, 'events' | 'files' | 'getAdmin'>,
  webhook: WebhookRecord,
): Promise<WebhookView> {
  const [stream, head, last, creator] = await Promise.all([
    store.events.streamOf(webhook.id, webhook.tenantId),
    store.files.auditHead(webhook.tenantId),
    store.events.lastDeliveries([webhook.id]),
    store.getAdmin(webhook.createdBy),
  ]);
  return webhookView(webhook, {
    stoppedReason: creator === undefined ? 'its creator was removed' : stoppedReason(creator),
    lowWaterSeq: stream?.lowWater ?? 0,
    headSeq: head.seq,
    last: last.get(webhook.id),
  });
}

/** Why a webhook carries nothing now, or null when it delivers (the operator's CLI shows it too). */
export function stoppedReason(creator: Admin): string | null {
  if (creator.removedAt !== null) return 'its creator was removed';
  if (creator.status !== 'ACTIVE') return `its creator is ${creator.status.toLowerCase()}`;
  if (!holds(creator, 'audit:read')) return 'its creator no longer holds audit:read';
  return null;
}

/** An owner's webhook sees the whole tenant; another admin's, the tenant audit view's part of it. */
function visibilityOf(creator: Admin, admins: readonly Admin[]): EventVisibility | undefined {
  if (isOwner(creator)) return undefined;
  return { channelIds: new Set(creator.channelIds), adminIds: new Set([creator.id, ...adminsBelow(admins, creator.id)]) };
}
