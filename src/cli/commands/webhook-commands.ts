import type { Command, OptionSpec } from '../command.ts';
import { pageOptions } from '../paging.ts';
import { clearOption, deliveryStatusOption, endpointOption, filterOptions, idOption } from './webhook-options.ts';
import {
  createWebhookRemotely,
  deleteWebhookRemotely,
  listDeliveriesRemotely,
  listWebhooksRemotely,
  pauseRemotely,
  retryDeliveryRemotely,
  rotateSecretRemotely,
  showWebhookRemotely,
  testWebhookRemotely,
  updateWebhookRemotely,
} from './webhook-remote.ts';
import { webhookVerifyCommand } from './webhook-verify-command.ts';

/*
 * A tenant's webhooks (docs/events.md, "Webhooks"). Over HTTP, an admin holding webhooks:manage makes
 * and runs them as the API lets it. Locally, the operator reads every tenant's, and pauses or resumes
 * one (the break-glass for an endpoint that floods or leaks), recorded in the tenant's chain; making
 * one, or anything that needs its sealed URL or secret, is the tenant's business, over HTTP.
 */

/** The local mode's module (the store's records, the webhook rules) loads only for a command run here. */
const local = () => import('./webhook-local.ts');

const remotePage = { limit: { ...pageOptions.limit, only: 'remote' }, cursor: { ...pageOptions.cursor, only: 'remote' } } as const;

const tenantOption: OptionSpec = {
  type: 'string',
  placeholder: 'ID',
  description: "Tenant id (t_…); default: every tenant (over HTTP: the signed-in admin's)",
  only: 'local',
};

export const webhookCommands: Command[] = [
  {
    words: ['webhook', 'list'],
    summary: "The webhooks you manage (locally: every tenant's), each with its state and how far it has delivered",
    options: { tenant: tenantOption, ...remotePage },
    remote: listWebhooksRemotely,
    run: async (context) => (await local()).listWebhooksLocally(context),
  },
  {
    words: ['webhook', 'show'],
    summary: 'A webhook: its endpoint, filters, state, how far it has delivered and its last delivery (never its secret)',
    options: { id: idOption },
    positional: 'id',
    remote: showWebhookRemotely,
    run: async (context) => (await local()).showWebhookLocally(context),
  },
  {
    words: ['webhook', 'create'],
    summary: "Post the tenant's events to an endpoint, signed: prints the signing secret, shown this once",
    options: {
      endpoint: { ...endpointOption, required: true },
      ...filterOptions,
      from: {
        type: 'string',
        placeholder: 'head|start',
        description: 'head: the events from now on (default); start: the whole chain first',
      },
    },
    remote: createWebhookRemotely,
  },
  {
    words: ['webhook', 'update'],
    summary: 'Change a webhook: its endpoint, a filter (given ones replace it), or pause or resume it',
    options: {
      id: idOption,
      endpoint: endpointOption,
      ...filterOptions,
      clear: clearOption,
      pause: { type: 'boolean', description: 'Stop delivering; events wait, and go out in order on --resume' },
      resume: { type: 'boolean', description: 'Deliver again, from where it stopped' },
    },
    positional: 'id',
    remote: updateWebhookRemotely,
  },
  {
    words: ['webhook', 'pause'],
    summary: "Stop a webhook's deliveries: its events wait (locally: as the operator, recorded in the tenant's audit log)",
    options: { id: idOption },
    positional: 'id',
    remote: pauseRemotely(true),
    run: async (context) => (await local()).pauseLocally(true)(context),
  },
  {
    words: ['webhook', 'resume'],
    summary: 'Deliver a paused webhook again, from where it stopped (locally: as the operator, recorded)',
    options: { id: idOption },
    positional: 'id',
    remote: pauseRemotely(false),
    run: async (context) => (await local()).pauseLocally(false)(context),
  },
  {
    words: ['webhook', 'delete'],
    summary: 'Delete a webhook and its delivery log: its endpoint gets no more events',
    options: { id: idOption },
    positional: 'id',
    remote: deleteWebhookRemotely,
  },
  {
    words: ['webhook', 'test'],
    summary: 'Post a signed webhook.test event now (not in the audit log) and print what the endpoint answered',
    options: { id: idOption },
    positional: 'id',
    remote: testWebhookRemotely,
  },
  {
    words: ['webhook', 'rotate-secret'],
    summary: 'A new signing secret, shown this once; the previous one signs beside it for WEBHOOK_SECRET_GRACE',
    options: { id: idOption },
    positional: 'id',
    remote: rotateSecretRemotely,
  },
  {
    words: ['webhook', 'deliveries'],
    summary: "A webhook's delivery log, newest first: each event's status, attempts, last answer or error",
    options: { id: idOption, status: deliveryStatusOption, ...pageOptions },
    positional: 'id',
    remote: listDeliveriesRemotely,
    run: async (context) => (await local()).listDeliveriesLocally(context),
  },
  {
    words: ['webhook', 'retry'],
    summary: 'Attempt a delivery again now: a dead one is posted at once, a retrying one is made due',
    options: {
      id: idOption,
      delivery: { type: 'string', required: true, placeholder: 'ID', description: 'Delivery id (dlv_…), from webhook deliveries' },
    },
    positional: 'id',
    remote: retryDeliveryRemotely,
  },
  webhookVerifyCommand,
];

/** Where every destination of events out stands: the operator's view, from the metadata store. */
export const eventsStatusCommand: Command = {
  words: ['events', 'status'],
  summary:
    "Every destination of events out (the brokers the settings name, every tenant's webhooks): state, low water vs chain head, retrying and dead deliveries",
  options: {
    tenant: { type: 'string', placeholder: 'ID', description: "Only this tenant's webhooks, and its chain in the brokers" },
  },
  run: async (context) => (await import('./events-status.ts')).eventsStatus(context),
};

/** Removes a broker's positions once the operator has taken it out of the settings. */
export const eventsForgetCommand: Command = {
  words: ['events', 'forget'],
  summary: "Forget where a broker taken out of the settings stood in every chain: configured again, it starts at each chain's head",
  options: {
    broker: { type: 'string', required: true, placeholder: 'SETTING', description: 'EVENTS_NATS_URL, EVENTS_AMQP_URL or EVENTS_REDIS_URL' },
  },
  run: async (context) => (await import('./events-status.ts')).eventsForget(context),
};
