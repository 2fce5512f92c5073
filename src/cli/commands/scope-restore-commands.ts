import { AppError, isAppError } from '../../errors/app-error.ts';
import type { ScopeRestoreOutcome } from '../../files/scope-restore-service.ts';
import type { Channel } from '../../model/channels.ts';
import { type Command, type OptionValues, stringOption } from '../command.ts';
import { atMostOneOf, backupOption, instantOption, planTagOption } from '../option-checks.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';
import { channelFrom, channelRefOptions } from './channel-option.ts';
import { restoreChannelRemotely, restoreFolderRemotely } from './scope-restore-remote.ts';

const restoreOptions = {
  ...channelRefOptions,
  backup: { type: 'string', placeholder: 'TS', description: 'Backup timestamp yyyyMMdd_HHmmss (or --at)' },
  at: { type: 'string', placeholder: 'TIME', description: 'Instead of a backup: the state at this RFC 3339 instant' },
  'dry-run': { type: 'boolean', description: 'Print what would change, change nothing' },
  delete: { type: 'boolean', description: 'Also delete live files the backup does not hold (default: keep them)' },
  'if-match': {
    type: 'string',
    placeholder: 'TAG',
    description: 'Restore only if the plan is still the one --dry-run printed with this tag (else nothing is restored)',
  },
} as const;

export const scopeRestoreCommands: Command[] = [
  {
    words: ['folder', 'restore'],
    summary: 'Restore a folder from a backup or to an instant (a backup of the channel is taken first, to undo it)',
    options: { ...restoreOptions, folder: { type: 'string', required: true, description: 'Folder name' } },
    remote: restoreFolderRemotely,
    async run({ values, store, fileServices, operator }) {
      const options = optionsOf(values);
      const channel = await channelFrom(await store(), values);
      const folder = stringOption(values, 'folder');
      const outcome = await withCliNames(
        `folder ${folder}`,
        (await fileServices()).scopeRestores.restore(channel, operator, { folder, ...options }),
      );
      return report(channel, `folder ${folder}`, outcome);
    },
  },
  {
    words: ['channel', 'restore'],
    summary: 'Restore every folder of a channel from a backup or to an instant (a backup of the channel is taken first, to undo it)',
    options: restoreOptions,
    remote: restoreChannelRemotely,
    async run({ values, store, fileServices, operator }) {
      const options = optionsOf(values);
      const channel = await channelFrom(await store(), values);
      const outcome = await withCliNames(`channel ${channel.id}`, (await fileServices()).scopeRestores.restore(channel, operator, options));
      return report(channel, `channel ${channel.id}`, outcome);
    },
  },
];

function optionsOf(values: OptionValues) {
  atMostOneOf(values, ['backup', 'at'], true);
  const ifMatch = planTagOption(values, 'if-match');
  return {
    backupTimestamp: backupOption(values, 'backup'),
    at: instantOption(values, 'at'),
    dryRun: values['dry-run'] === true,
    delete: values.delete === true,
    precondition: ifMatch === undefined ? {} : { ifMatch: [{ weak: false, opaque: ifMatch }] },
  };
}

/** The service names the HTTP header in a refusal of If-Match; here the operator typed --if-match. */
async function withCliNames(scope: string, restoring: Promise<ScopeRestoreOutcome>): Promise<ScopeRestoreOutcome> {
  try {
    return await restoring;
  } catch (error) {
    if (!isAppError(error) || error.code !== 'PRECONDITION_FAILED') throw error;
    const current = String(error.extra?.currentEtag ?? '').replaceAll('"', '');
    throw new AppError(
      'PRECONDITION_FAILED',
      `--if-match is not met: the ${scope} changed since that plan; the current plan's tag is ${current} (--dry-run shows it); nothing was restored`,
      error.extra,
    );
  }
}

function report(channel: Channel, scope: string, outcome: ScopeRestoreOutcome) {
  const lines = outcome.changes.map((change) => terminalText`${change.action.padEnd(7)}  ${change.folder}/${change.filename}`);
  const counted = `${outcome.changes.length} change(s), ${outcome.unchanged} file(s) unchanged`;
  const tag = outcome.etag.replaceAll('"', '');
  const head = outcome.dryRun
    ? terminalText`Dry run of the restore of ${scope}: ${counted}; nothing was changed. Plan tag ${tag}: add --if-match ${tag} to restore exactly this plan`
    : outcome.safetyBackup === null
      ? terminalText`The ${scope} already is as the backup holds it: nothing changed`
      : terminalText`Restored ${scope}: ${counted}. To undo: wallet-admin channel restore --channel ${channel.id} --backup ${outcome.safetyBackup} --delete`;
  // JSON: etag as the API's ETag header carries it (quoted); --if-match takes it with or without the quotes.
  return { json: { channelId: channel.id, ...outcome }, text: terminalLines([head, ...lines]) };
}
