import type { ScopeRestoreOptions, ScopeRestoreResult } from '../../client/index.ts';
import { folderName } from '../../files/file-path.ts';
import type { CommandResult, OptionValues, RemoteContext } from '../command.ts';
import { stringOption } from '../command.ts';
import { atMostOneOf, backupOption, instantOption, planTagOption } from '../option-checks.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';

/*
 * Folder and channel restores over HTTP, as the signed-in admin. A policy may hold one (a proposal:
 * main prints it and exits 3); what the service answers otherwise is printed as the local mode does.
 */

function restoreOptionsOf(values: OptionValues): ScopeRestoreOptions {
  atMostOneOf(values, ['backup', 'at'], true);
  const backupTimestamp = backupOption(values, 'backup');
  const at = instantOption(values, 'at');
  const ifMatch = planTagOption(values, 'if-match');
  return {
    ...(backupTimestamp === undefined ? { at: at! } : { backupTimestamp }),
    dryRun: values['dry-run'] === true,
    delete: values.delete === true,
    ...(ifMatch === undefined ? {} : { ifMatch }),
  };
}

function report(channel: string, scope: string, result: ScopeRestoreResult): CommandResult {
  const lines = result.changes.map((change) => terminalText`${change.action.padEnd(7)}  ${change.folder}/${change.filename}`);
  const counted = `${result.changes.length} change(s), ${result.unchanged} file(s) unchanged`;
  const tag = result.etag.replaceAll('"', '');
  const head = result.dryRun
    ? terminalText`Dry run of the restore of ${scope}: ${counted}; nothing was changed. Plan tag ${tag}: add --if-match ${tag} to restore exactly this plan`
    : result.safetyBackup === null
      ? terminalText`The ${scope} already is as the backup holds it: nothing changed`
      : terminalText`Restored ${scope}: ${counted}. To undo: wallet-admin channel restore --channel ${channel} --backup ${result.safetyBackup} --delete`;
  return { json: { channel, ...result }, text: terminalLines([head, ...lines]) };
}

export async function restoreFolderRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const options = restoreOptionsOf(values);
  const channel = stringOption(values, 'channel');
  // The service's own check of the name, here: one it refuses is refused before anything is sent (INVALID_PATH, exit 2).
  const folder = folderName(stringOption(values, 'folder'));
  return report(channel, `folder ${folder}`, await (await client()).restoreFolder(channel, folder, options));
}

export async function restoreChannelRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const options = restoreOptionsOf(values);
  const channel = stringOption(values, 'channel');
  return report(channel, `channel ${channel}`, await (await client()).restoreChannel(channel, options));
}
