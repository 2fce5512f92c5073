import type { RestoreSource } from '../../client/index.ts';
import { filePath } from '../../files/file-path.ts';
import { type CommandResult, optionalString, type RemoteContext, stringOption } from '../command.ts';
import { atMostOneOf, backupOption, instantOption } from '../option-checks.ts';
import { terminalText } from '../terminal-text.ts';

/**
 * `file restore` over HTTP, as the signed-in admin: the contract's restore, which answers the
 * file's URL and the version keeping what it replaced (none when nothing was: the file was not
 * there, or held those bytes already), not the file's size and hash as the local mode prints them.
 */
export async function restoreFileRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  atMostOneOf(values, ['backup', 'version', 'at']);
  const backupTimestamp = backupOption(values, 'backup');
  const versionId = optionalString(values, 'version');
  const at = instantOption(values, 'at');
  const channel = stringOption(values, 'channel');
  // The service's own check of the names, here: one it refuses is refused before anything is sent (INVALID_PATH, exit 2).
  const { folder, filename } = filePath(stringOption(values, 'folder'), stringOption(values, 'file'));
  const source: RestoreSource =
    backupTimestamp !== undefined ? { backupTimestamp } : versionId !== undefined ? { versionId } : at !== undefined ? { at } : {};
  const result = await (await client()).restore(channel, folder, filename, source);
  const from =
    backupTimestamp !== undefined
      ? `backup ${backupTimestamp}`
      : versionId !== undefined
        ? `version ${versionId}`
        : at !== undefined
          ? `the instant ${at}`
          : 'the newest backup holding it';
  const kept =
    result.keptVersionId === null
      ? '; nothing was replaced (the file was not there, or held these bytes already)'
      : `; the replaced bytes are kept as version ${result.keptVersionId}`;
  return {
    json: {
      channel,
      folder,
      filename,
      url: result.url,
      source: { backupTimestamp: backupTimestamp ?? null, versionId: versionId ?? null, at: at ?? null },
      keptVersionId: result.keptVersionId,
    },
    text: terminalText`Restored ${folder}/${filename} from ${from}: ${result.url}${kept}`,
  };
}
