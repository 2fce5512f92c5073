import { filePath } from '../../files/file-path.ts';
import { formatRfc3339 } from '../../time/rfc3339.ts';
import { type Command, optionalString, stringOption } from '../command.ts';
import { atMostOneOf, backupOption, instantOption } from '../option-checks.ts';
import { pageOptions, pageRequestOf, pageText } from '../paging.ts';
import { terminalText } from '../terminal-text.ts';
import { channelFrom, channelOptions, channelRefOptions } from './channel-option.ts';
import { restoreFileRemotely } from './file-restore-remote.ts';

const fileOptions = {
  ...channelOptions,
  folder: { type: 'string', required: true, description: 'Folder name' },
  file: { type: 'string', required: true, description: 'File name' },
} as const;

export const fileCommands: Command[] = [
  {
    words: ['file', 'restore'],
    summary: 'Restore a file from a backup (default: the newest holding it), a kept version, or as it was at an instant',
    options: {
      ...fileOptions,
      ...channelRefOptions,
      backup: { type: 'string', placeholder: 'TS', description: 'Backup timestamp yyyyMMdd_HHmmss' },
      version: { type: 'string', placeholder: 'ID', description: 'Version id (from "file versions"), instead of a backup' },
      at: { type: 'string', placeholder: 'TIME', description: 'Instead of a backup: the file as it was at this RFC 3339 instant' },
    },
    remote: restoreFileRemotely,
    async run({ values, store, fileServices, operator }) {
      atMostOneOf(values, ['backup', 'version', 'at']);
      const source = {
        backupTimestamp: backupOption(values, 'backup'),
        versionId: optionalString(values, 'version'),
        at: instantOption(values, 'at'),
      };
      const channel = await channelFrom(await store(), values);
      const requested = filePath(stringOption(values, 'folder'), stringOption(values, 'file'));
      const outcome = await (await fileServices()).restores.restore(channel, operator, requested, source);
      // No source: the file held its live bytes at the instant.
      const from =
        outcome.source === null
          ? `the instant ${source.at}`
          : outcome.source.backupTimestamp
            ? `backup ${outcome.source.backupTimestamp}`
            : `version ${outcome.source.id}`;
      const json = {
        channelId: channel.id,
        folder: outcome.file.folder,
        filename: outcome.file.filename,
        size: outcome.file.size,
        sha256: outcome.file.sha256,
        source: { backupTimestamp: outcome.source?.backupTimestamp ?? null, versionId: outcome.source?.id ?? null, at: source.at ?? null },
        changed: outcome.changed,
        keptVersionId: outcome.keptVersionId,
      };
      const kept = outcome.keptVersionId ? `; the replaced bytes are kept as version ${outcome.keptVersionId}` : '';
      const text = !outcome.changed
        ? terminalText`${requested.folder}/${requested.filename} already holds the bytes of ${from}; nothing changed`
        : terminalText`Restored ${requested.folder}/${requested.filename} from ${from} (${outcome.file.size} bytes, sha256 ${outcome.file.sha256})${kept}`;
      return { json, text };
    },
  },
  {
    words: ['file', 'versions'],
    summary: 'List every stored version of a file, newest first',
    options: { ...fileOptions, ...pageOptions },
    async run({ values, store, fileServices }) {
      const pageRequest = pageRequestOf(values);
      const channel = await channelFrom(await store(), values);
      const path = filePath(stringOption(values, 'folder'), stringOption(values, 'file'));
      // Through the file service, as the API's: a name an older release stored in another spelling is found by either.
      const page = await (await fileServices()).files.listVersions(channel, path, pageRequest);
      const items = page.items.map((v) => ({
        id: v.id,
        kind: v.kind,
        timestamp: v.backupTimestamp,
        size: v.size,
        sha256: v.sha256,
        time: formatRfc3339(v.createdAt),
      }));
      const lines = items.map(
        (v) =>
          terminalText`${v.id}  ${v.kind.padEnd(8)}  ${v.timestamp ?? '-'.padEnd(15)}  ${String(v.size).padStart(10)} bytes  ${v.time}`,
      );
      return { json: { items, next: page.next }, text: pageText(lines, page, terminalText`No stored versions`) };
    },
  },
  {
    words: ['file', 'deleted'],
    summary: 'List the files deleted from a folder that can still be restored (with "file restore --version")',
    options: {
      ...channelOptions,
      folder: { type: 'string', required: true, description: 'Folder name' },
      ...pageOptions,
    },
    async run({ values, store, fileServices }) {
      const pageRequest = pageRequestOf(values);
      const channel = await channelFrom(await store(), values);
      const page = await (await fileServices()).deleted.list(channel, stringOption(values, 'folder'), pageRequest);
      const items = page.items.map((v) => ({
        filename: v.filename,
        deletedAt: formatRfc3339(v.createdAt),
        deletedBy: v.createdBy,
        versionId: v.id,
        size: v.size,
        sha256: v.sha256,
      }));
      const lines = items.map(
        (d) => terminalText`${d.versionId}  ${d.deletedAt}  ${String(d.size).padStart(10)} bytes  by ${d.deletedBy ?? '-'}  ${d.filename}`,
      );
      return { json: { items, next: page.next }, text: pageText(lines, page, terminalText`No deleted files to restore`) };
    },
  },
];
