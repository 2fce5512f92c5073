import type { Config } from '../../config/config.ts';
import { AppError } from '../../errors/app-error.ts';
import { tenantNotFound } from '../../errors/common-errors.ts';
import { SERVICE_CHAIN } from '../../model/audit.ts';
import type { DeliveryStatus, WebhookRecord } from '../../model/events.ts';
import type { MetadataStore } from '../../model/metadata-store.ts';
import { webhookViewOf } from '../../webhooks/webhook-service.ts';
import type { CommandContext, CommandResult } from '../command.ts';
import { optionalString } from '../command.ts';
import { type TerminalText, terminalLines, terminalText } from '../terminal-text.ts';
import { progressText } from '../webhook-views.ts';

/*
 * `events status`: where every destination of events out stands (docs/events.md), read from the
 * metadata store alone, as the delivery loop of any instance left it. A broker's rows are keyed by
 * its setting's name; a webhook's by its id. Nothing is written: a broker no instance has started
 * yet shows as such (the dispatcher makes its streams at its first look), not started by this.
 */

/** The brokers, by the setting that names each (its rows' key) and the kind the metrics name it by. */
const BROKERS = [
  { setting: 'EVENTS_NATS_URL', kind: 'nats', url: (c: Config) => c.events.brokers.natsUrl },
  { setting: 'EVENTS_AMQP_URL', kind: 'amqp', url: (c: Config) => c.events.brokers.amqpUrl },
  { setting: 'EVENTS_REDIS_URL', kind: 'redis', url: (c: Config) => c.events.brokers.redisUrl },
] as const;

/** What a broker's streams hold before any chain: the mark that the destination was seen (event-records.ts). */
const SEEN_MARK = '';

/** The counts of the delivery log read per page: the log keeps EVENTS_LOG_DAYS of them. */
const COUNT_PAGE = 1000;

interface ChainStanding {
  /** A tenant's id, or "service" for the service-wide chain. */
  chain: string;
  head: number;
  /** Every event at or below it was delivered or dead-lettered; null: this destination has not started on the chain. */
  lowWater: number | null;
  /** Events of the chain past the low water: what is still to deliver or to skip (not all may be for it). */
  lag: number | null;
}

interface DestinationStatus {
  kind: string;
  key: string;
  state: string;
  /** Why a webhook delivers nothing (a stopped one), or what a broker's state means. */
  reason: string | null;
  tenantId: string | null;
  /** A webhook's URL as redacted when it was set; a broker's never (its setting may hold a password). */
  url: string | null;
  chains: ChainStanding[];
  deliveries: { retrying: number; dead: number };
}

type Store = Pick<MetadataStore, 'events' | 'files' | 'getAdmin' | 'getTenant' | 'listTenants'>;

/** The deliveries of one status, counted a page at a time (those of one tenant, when given). */
async function countDeliveries(store: Store, destination: string, status: DeliveryStatus, tenantId?: string): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await store.events.listDeliveries(destination, { limit: COUNT_PAGE, cursor }, status);
    count += tenantId === undefined ? page.items.length : page.items.filter((d) => d.tenantId === tenantId).length;
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return count;
}

async function deliveryCounts(store: Store, destination: string, tenantId?: string): Promise<DestinationStatus['deliveries']> {
  const [retrying, dead] = await Promise.all([
    countDeliveries(store, destination, 'retrying', tenantId),
    countDeliveries(store, destination, 'dead', tenantId),
  ]);
  return { retrying, dead };
}

async function standing(store: Store, destination: string, chain: string): Promise<ChainStanding> {
  const [stream, head] = await Promise.all([store.events.streamOf(destination, chain), store.files.auditHead(chain)]);
  const lowWater = stream?.lowWater ?? null;
  return { chain, head: head.seq, lowWater, lag: lowWater === null ? null : Math.max(0, head.seq - lowWater) };
}

/**
 * A broker configured here, and one whose positions the store holds though it is not configured
 * here: the service may run with settings other than this shell's, or not have restarted since the
 * setting went (a start without it forgets them: docs/events.md, "Brokers").
 */
async function brokerStatus(
  store: Store,
  broker: (typeof BROKERS)[number],
  configured: boolean,
  chains: string[],
  tenantId: string | undefined,
): Promise<DestinationStatus | undefined> {
  const seen = (await store.events.streamOf(broker.setting, SEEN_MARK)) !== undefined;
  if (!configured && !seen) return undefined;
  const state = configured ? (seen ? 'configured' : 'not started') : 'not configured';
  const reason = !configured
    ? `${broker.setting} is not set here, yet the store holds its positions: the service runs with other settings, or has not restarted since it was removed`
    : seen
      ? null
      : 'no instance has delivered to it yet; its first look starts every chain at its head';
  return {
    kind: broker.kind,
    key: broker.setting,
    state,
    reason,
    tenantId: null,
    url: null,
    chains: seen ? await Promise.all(chains.map((chain) => standing(store, broker.setting, chain))) : [],
    deliveries: await deliveryCounts(store, broker.setting, tenantId),
  };
}

async function webhookStatus(store: Store, webhook: WebhookRecord): Promise<DestinationStatus> {
  const view = await webhookViewOf(store, webhook);
  return {
    kind: 'webhook',
    key: webhook.id,
    state: view.state,
    reason: view.state === 'stopped' ? view.stoppedReason : null,
    tenantId: webhook.tenantId,
    url: view.url,
    chains: [
      { chain: webhook.tenantId, head: view.headSeq, lowWater: view.lowWaterSeq, lag: Math.max(0, view.headSeq - view.lowWaterSeq) },
    ],
    deliveries: await deliveryCounts(store, webhook.id),
  };
}

function chainLine(chain: ChainStanding): TerminalText {
  const where = chain.lowWater === null ? `not started (head ${chain.head})` : progressText(chain.lowWater, chain.head);
  return terminalText`    chain ${chain.chain}: ${where}`;
}

function destinationLines(d: DestinationStatus): TerminalText[] {
  const state = d.reason === null ? d.state : `${d.state} (${d.reason})`;
  const where = d.tenantId === null ? '' : `  tenant ${d.tenantId}  ${d.url}`;
  return [
    terminalText`${d.kind}  ${d.key}  ${state}${where}`,
    ...d.chains.map(chainLine),
    terminalText`    deliveries: ${d.deliveries.retrying} retrying, ${d.deliveries.dead} dead`,
  ];
}

/**
 * `events forget --broker SETTING`: a broker taken out of the settings is a destination removed, and
 * its positions go by the operator's word, not by a start without the setting: an instance started
 * without it during a rolling change would otherwise erase the position the others deliver from.
 * Configured again afterwards, it starts at each chain's head.
 */
export async function eventsForget({ values, config, store }: CommandContext): Promise<CommandResult> {
  const setting = optionalString(values, 'broker')!;
  const broker = BROKERS.find((b) => b.setting === setting);
  if (broker === undefined) {
    throw new AppError('VALIDATION_FAILED', `--broker names the setting of a broker: ${BROKERS.map((b) => b.setting).join(', ')}`);
  }
  if (broker.url(config) !== undefined) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${setting} is set here: take it out of every instance's settings first (instances still delivering would start over at the heads)`,
    );
  }
  const s = await store();
  const known = (await s.events.knownDestinations()).includes(setting);
  if (known) await s.events.forgetDestination(setting);
  return {
    json: { broker: setting, forgotten: known },
    text: known
      ? terminalText`Forgot where ${setting} stood in every chain: configured again, it starts at each chain's head`
      : terminalText`${setting} has no positions to forget`,
  };
}

export async function eventsStatus({ values, config, store }: CommandContext): Promise<CommandResult> {
  const s = await store();
  const tenantId = optionalString(values, 'tenant');
  if (tenantId !== undefined && !(await s.getTenant(tenantId))) throw tenantNotFound(tenantId);
  // A broker carries every tenant's chain and the service-wide one; --tenant narrows it to that tenant's.
  const chains = tenantId !== undefined ? [tenantId] : [...(await s.listTenants()).map((t) => t.id), SERVICE_CHAIN];
  const brokers = await Promise.all(BROKERS.map((b) => brokerStatus(s, b, b.url(config) !== undefined, chains, tenantId)));
  const webhooks = (await s.events.allWebhooks()).filter((w) => tenantId === undefined || w.tenantId === tenantId);
  const destinations = [
    ...brokers.filter((b): b is DestinationStatus => b !== undefined),
    ...(await Promise.all(webhooks.map((w) => webhookStatus(s, w)))),
  ];
  return {
    json: { destinations },
    text:
      destinations.length > 0
        ? terminalLines(destinations.flatMap(destinationLines))
        : terminalText`No destinations: no broker is configured (EVENTS_NATS_URL, EVENTS_AMQP_URL, EVENTS_REDIS_URL) and no tenant has a webhook`,
  };
}
