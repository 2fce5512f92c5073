import type { WebhookChanges } from '../../client/index.ts';
import type { CommandResult, OptionValues, RemoteContext } from '../command.ts';
import { optionalString, stringOption, UsageError } from '../command.ts';
import { atMostOneOf } from '../option-checks.ts';
import { pageRequestOf, pageText } from '../paging.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';
import { deliveryLine, webhookDetails, webhookLine } from '../webhook-views.ts';
import { clearedFilters, filtersOf, fromOption, statusOption } from './webhook-options.ts';

/*
 * The webhook commands over HTTP, as the signed-in admin (webhooks:manage; docs/events.md): the
 * service decides what it may do and whether a policy holds it (then the client throws
 * HeldForApproval, which main prints as every held command does). A secret is printed only by
 * create and rotate-secret, the one time the service answers it.
 */

export async function listWebhooksRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const page = await (await client()).listWebhooks(pageRequestOf(values));
  return { json: { ...page }, text: pageText(page.items.map(webhookLine), page, terminalText`No webhooks you manage`) };
}

export async function showWebhookRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const webhook = await (await client()).getWebhook(stringOption(values, 'id'));
  return { json: { ...webhook }, text: webhookDetails(webhook) };
}

export async function createWebhookRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const from = fromOption(values);
  const created = await (await client()).createWebhook({
    url: stringOption(values, 'endpoint'),
    ...filtersOf(values),
    ...(from === undefined ? {} : { from }),
  });
  const { secret, ...webhook } = created;
  return {
    json: { ...created },
    text: terminalLines([
      terminalText`Created ${webhookLine(webhook)}`,
      terminalText`Secret (shown this once; the receiver verifies every delivery with it): ${secret}`,
    ]),
  };
}

/** The change an update asks for, refused when it asks for none (the service would, after a sign-in). */
function changesOf(values: OptionValues): WebhookChanges {
  atMostOneOf(values, ['pause', 'resume']);
  const url = optionalString(values, 'endpoint');
  const changes: WebhookChanges = {
    ...(url === undefined ? {} : { url }),
    ...filtersOf(values),
    ...clearedFilters(values),
    ...(values.pause === true ? { paused: true } : values.resume === true ? { paused: false } : {}),
  };
  if (Object.keys(changes).length === 0) {
    throw new UsageError('Say what to change: --endpoint, --type, --channel, --folder, --result, --clear, --pause or --resume');
  }
  return changes;
}

export async function updateWebhookRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const changes = changesOf(values);
  const webhook = await (await client()).updateWebhook(stringOption(values, 'id'), changes);
  return { json: { ...webhook }, text: terminalText`Webhook ${webhookLine(webhook)}` };
}

/** pause and resume over HTTP: an update of `paused` alone. */
export function pauseRemotely(paused: boolean) {
  return async ({ values, client }: RemoteContext): Promise<CommandResult> => {
    const webhook = await (await client()).updateWebhook(stringOption(values, 'id'), { paused });
    return { json: { ...webhook }, text: terminalText`Webhook ${webhookLine(webhook)}` };
  };
}

export async function deleteWebhookRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const id = stringOption(values, 'id');
  await (await client()).deleteWebhook(id);
  return { json: { id, deleted: true }, text: terminalText`Deleted webhook ${id} and its delivery log: its endpoint gets no more events` };
}

export async function testWebhookRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const id = stringOption(values, 'id');
  const result = await (await client()).testWebhook(id);
  const answer = result.status === null ? 'no answer' : `HTTP ${result.status}`;
  // Not delivered is the test's finding, not the command's failure: it says what the endpoint answered.
  return {
    json: { ...result },
    text: result.delivered
      ? terminalText`Delivered a webhook.test event to ${id}: ${answer} in ${result.latencyMs} ms`
      : terminalText`Not delivered to ${id}: ${result.error ?? answer} (after ${result.latencyMs} ms)`,
  };
}

export async function rotateSecretRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const rotated = await (await client()).rotateWebhookSecret(stringOption(values, 'id'));
  return {
    json: { ...rotated },
    text: terminalLines([
      terminalText`New secret of webhook ${rotated.id} (shown this once): ${rotated.secret}`,
      terminalText`Each delivery is signed with the previous secret too until ${rotated.previousSecretValidUntil}: give the endpoint the new one before then`,
    ]),
  };
}

export async function listDeliveriesRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const status = statusOption(values);
  const page = await (await client()).listWebhookDeliveries(stringOption(values, 'id'), {
    ...pageRequestOf(values),
    ...(status === undefined ? {} : { status }),
  });
  return { json: { ...page }, text: pageText(page.items.map(deliveryLine), page, terminalText`No deliveries`) };
}

export async function retryDeliveryRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const delivery = await (await client()).retryWebhookDelivery(stringOption(values, 'id'), stringOption(values, 'delivery'));
  return { json: { ...delivery }, text: terminalText`Retried: ${deliveryLine(delivery)}` };
}
