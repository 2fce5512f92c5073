import type { WebhookDeliveryStatus, WebhookResult } from '../../client/index.ts';
import { checkTypes } from '../../events/event-filter.ts';
import { AUDIT_RESULTS } from '../../model/audit.ts';
import { DELIVERY_STATUSES } from '../../model/events.ts';
import { listOption, type OptionSpec, type OptionValues, optionalString, UsageError } from '../command.ts';

/*
 * The webhook commands' options, checked here before anything is sent or read, so that a typo
 * names the option typed (--type) rather than the API's member (types), as for --permission. The
 * service checks them again (a channel it does not know, a URL it will not reach).
 */

export const idOption: OptionSpec = {
  type: 'string',
  required: true,
  placeholder: 'ID',
  description: 'Webhook id (whk_…), or give it after the command',
};

/**
 * The webhook's URL. Not --url: that option is the remote mode's, the service the CLI talks to.
 * "Endpoint" as Standard Webhooks names the receiver's URL.
 */
export const endpointOption: OptionSpec = {
  type: 'string',
  placeholder: 'URL',
  description: 'Where the events are posted: an https:// URL (http:// and private addresses only as OUTBOUND_ALLOW lets them)',
};

/** The filters of a webhook: each repeatable, each narrowing (none: every event the creator may read). */
export const filterOptions = {
  type: {
    type: 'string',
    multiple: true,
    placeholder: 'TYPE',
    description: 'Only events of this type: an audit action (upload, backup.delete) or a family (backup.*)',
  },
  channel: { type: 'string', multiple: true, placeholder: 'ID|NAME', description: "Only this channel's events" },
  folder: { type: 'string', multiple: true, placeholder: 'NAME', description: 'Only file events in a folder of this name' },
  result: {
    type: 'string',
    multiple: true,
    placeholder: 'RESULT',
    description: `Carry events of this result: ${AUDIT_RESULTS.join(', ')} (default: ok)`,
  },
} as const satisfies Record<string, OptionSpec>;

/** What `webhook update --clear` may empty: the filters whose empty list means "every". */
const CLEARABLE = { type: 'types', channel: 'channels', folder: 'folders' } as const;
type Clearable = keyof typeof CLEARABLE;

export const clearOption: OptionSpec = {
  type: 'string',
  multiple: true,
  placeholder: 'FILTER',
  description: `Drop a filter, so that it takes every value again: ${Object.keys(CLEARABLE).join(', ')}`,
};

export const deliveryStatusOption: OptionSpec = {
  type: 'string',
  placeholder: 'STATUS',
  description: `Only deliveries of this status: ${DELIVERY_STATUSES.join(', ')}`,
};

function checkedTypes(values: OptionValues): string[] {
  const types = listOption(values, 'type');
  for (const type of types) {
    // The service's own rule: an action it records, or a family that holds one.
    try {
      checkTypes([type]);
    } catch {
      throw new UsageError(
        `--type ${type.slice(0, 80)} is no event type: give an audit action (upload, backup.delete, admin.update, …) or a family such as backup.*`,
      );
    }
  }
  return types;
}

function checkedResults(values: OptionValues): WebhookResult[] {
  const results = listOption(values, 'result');
  for (const result of results) {
    if (!(AUDIT_RESULTS as readonly string[]).includes(result)) {
      throw new UsageError(`--result must be one of ${AUDIT_RESULTS.join(', ')} (got "${result.slice(0, 80)}")`);
    }
  }
  return results as WebhookResult[];
}

/** A folder's name as the service takes it in a filter: 1 to 255 characters, no '/'. */
function checkedFolders(values: OptionValues): string[] {
  const folders = listOption(values, 'folder');
  for (const folder of folders) {
    if (folder.length === 0 || folder.length > 255 || folder.includes('/')) {
      throw new UsageError(`--folder must be a folder's name, 1 to 255 characters without '/' (got "${folder.slice(0, 80)}")`);
    }
  }
  return folders;
}

/** The filters given, each only when given (a new webhook's defaults, an update's "unchanged"). */
export function filtersOf(values: OptionValues): { types?: string[]; channels?: string[]; folders?: string[]; results?: WebhookResult[] } {
  const types = checkedTypes(values);
  const channels = listOption(values, 'channel');
  const folders = checkedFolders(values);
  const results = checkedResults(values);
  return {
    ...(types.length > 0 ? { types } : {}),
    ...(channels.length > 0 ? { channels } : {}),
    ...(folders.length > 0 ? { folders } : {}),
    ...(results.length > 0 ? { results } : {}),
  };
}

/** The filters --clear empties, refused beside a value for the same filter (which would it be?). */
export function clearedFilters(values: OptionValues): { types?: []; channels?: []; folders?: [] } {
  const cleared: Record<string, []> = {};
  for (const name of listOption(values, 'clear')) {
    if (!(name in CLEARABLE)) {
      throw new UsageError(`--clear must be one of ${Object.keys(CLEARABLE).join(', ')} (got "${name.slice(0, 80)}")`);
    }
    if (listOption(values, name).length > 0) throw new UsageError(`Give --${name} or --clear ${name}, not both`);
    cleared[CLEARABLE[name as Clearable]] = [];
  }
  return cleared;
}

export function fromOption(values: OptionValues): 'head' | 'start' | undefined {
  const from = optionalString(values, 'from');
  if (from !== undefined && from !== 'head' && from !== 'start') {
    throw new UsageError(`--from must be head (the events from now on) or start (the whole chain first), not "${from.slice(0, 80)}"`);
  }
  return from;
}

export function statusOption(values: OptionValues): WebhookDeliveryStatus | undefined {
  const status = optionalString(values, 'status');
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')} (got "${status.slice(0, 80)}")`);
  }
  return status as WebhookDeliveryStatus | undefined;
}
