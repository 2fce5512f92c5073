import { formatRfc3339 as iso } from '../../time/rfc3339.ts';
import { backupLine } from '../backup-views.ts';
import { type Command, optionalString } from '../command.ts';
import { atMostOneOf, backupOption, instantOption } from '../option-checks.ts';
import { pageOptions, pageRequestOf, pageText } from '../paging.ts';
import { backupJson } from '../record-views.ts';
import { terminalText } from '../terminal-text.ts';
import { backupLockCommands } from './backup-lock-commands.ts';
import { createBackupRemotely, listBackupsRemotely } from './backup-remote.ts';
import { channelFrom, channelOptions, channelRefOptions } from './channel-option.ts';

export const backupCommands: Command[] = [
  {
    words: ['backup', 'create'],
    summary: 'Back up every folder of a channel now',
    options: channelRefOptions,
    remote: createBackupRemotely,
    async run({ values, store, fileServices, operator }) {
      const channel = await channelFrom(await store(), values);
      const backup = await (await fileServices()).backups.create(channel, operator, 'cli');
      const json = {
        channelId: channel.id,
        timestamp: backup.timestamp,
        files: backup.files,
        bytes: backup.bytes,
        origin: backup.origin,
        createdAt: iso(backup.createdAt),
      };
      return { json, text: terminalText`Backup ${backup.timestamp} of ${channel.id}: ${backup.files} files, ${backup.bytes} bytes` };
    },
  },
  {
    words: ['backup', 'list'],
    summary: 'List the backups of a channel, newest first',
    options: { ...channelRefOptions, ...pageOptions },
    remote: listBackupsRemotely,
    async run({ values, store, fileServices }) {
      const pageRequest = pageRequestOf(values);
      const channel = await channelFrom(await store(), values);
      const page = await (await fileServices()).backups.list(channel, pageRequest);
      const items = page.items.map(backupJson);
      return {
        json: { items, next: page.next },
        text: pageText(items.map(backupLine), page, terminalText`No backups of ${channel.id} yet`),
      };
    },
  },
  ...backupLockCommands,
  {
    words: ['backup', 'diff'],
    summary: 'List what changed in a channel between two backups or instants, or since one',
    options: {
      ...channelOptions,
      from: { type: 'string', placeholder: 'TS', description: 'The older backup, yyyyMMdd_HHmmss (or --from-at)' },
      'from-at': { type: 'string', placeholder: 'TIME', description: 'Instead of --from: the channel at this RFC 3339 instant' },
      to: { type: 'string', placeholder: 'TS', description: 'The newer backup (default: the live files now)' },
      'to-at': { type: 'string', placeholder: 'TIME', description: 'Instead of --to: the channel at this RFC 3339 instant' },
      folder: { type: 'string', description: 'Only this folder' },
      ...pageOptions,
    },
    async run({ values, store, fileServices }) {
      const pageRequest = pageRequestOf(values);
      atMostOneOf(values, ['from', 'from-at'], true);
      atMostOneOf(values, ['to', 'to-at']);
      const request = {
        from: backupOption(values, 'from'),
        fromAt: instantOption(values, 'from-at'),
        to: backupOption(values, 'to'),
        toAt: instantOption(values, 'to-at'),
        folder: optionalString(values, 'folder'),
        // A refusal (the newer end before the older one) names the options as typed here.
        names: { from: '--from', fromAt: '--from-at', to: '--to', toAt: '--to-at' },
      };
      const channel = await channelFrom(await store(), values);
      const page = await (await fileServices()).changes.between(channel, request, pageRequest);
      const lines = page.items.map(
        (c) => terminalText`${c.change.padEnd(7)}  ${String(c.size).padStart(10)} bytes  ${c.folder}/${c.filename}`,
      );
      const since = `${request.from ?? request.fromAt} and ${request.to ?? request.toAt ?? 'now'}`;
      return { json: { items: page.items, next: page.next }, text: pageText(lines, page, terminalText`No changes between ${since}`) };
    },
  },
];
