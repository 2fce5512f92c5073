import { lockText } from '../backup-views.ts';
import type { Command } from '../command.ts';
import { backupOption } from '../option-checks.ts';
import { backupJson } from '../record-views.ts';
import { terminalText } from '../terminal-text.ts';
import { lockChangeOptions } from './backup-lock-options.ts';
import { deleteBackupRemotely, lockBackupRemotely } from './backup-remote.ts';
import { channelFrom, channelRefOptions } from './channel-option.ts';

/**
 * The operator's CLI acts on backup locks with an owner's powers over governance locks and legal
 * holds (as S3's bypass-governance), never over a compliance lock: that binds everyone before its
 * date (docs/backup-locks.md). Its audit entries carry no admin id. Over HTTP the signed-in
 * admin's powers are the service's to decide.
 */

const backupOptions = {
  ...channelRefOptions,
  backup: { type: 'string', required: true, placeholder: 'TS', description: 'The backup, yyyyMMdd_HHmmss' },
} as const;

export const backupLockCommands: Command[] = [
  {
    words: ['backup', 'delete'],
    summary: 'Delete a backup (the named instant; its versions then fall to retention); refused while it is locked',
    options: {
      ...backupOptions,
      'bypass-governance': {
        type: 'boolean',
        description: 'Delete it even under a governance lock (never under a compliance lock or a legal hold)',
        // Over HTTP nobody bypasses a lock: an owner lifts a governance lock first (backup lock --unlock).
        only: 'local',
      },
    },
    remote: deleteBackupRemotely,
    async run({ values, store, fileServices, operator }) {
      const timestamp = backupOption(values, 'backup')!;
      const channel = await channelFrom(await store(), values);
      const bypassGovernance = values['bypass-governance'] === true;
      await (await fileServices()).backupLocks.delete(channel, { ...operator, authority: 'operator' }, timestamp, { bypassGovernance });
      return {
        json: { channelId: channel.id, timestamp, deleted: true },
        text: terminalText`Deleted backup ${timestamp} of ${channel.id}; the versions it named are now retention's to keep or remove`,
      };
    },
  },
  {
    words: ['backup', 'lock'],
    summary: 'Lock a backup until a date, put it under legal hold or release it, or lift a governance lock',
    options: {
      ...backupOptions,
      mode: { type: 'string', placeholder: 'MODE', description: 'governance or compliance (with --until)' },
      until: {
        type: 'string',
        placeholder: 'TIME',
        description: 'RFC 3339: when the lock ends, at most BACKUP_LOCK_MAX_DAYS ahead (with --mode)',
      },
      'legal-hold': { type: 'boolean', description: 'Put it under legal hold, until released' },
      'release-hold': { type: 'boolean', description: 'Release its legal hold' },
      unlock: {
        type: 'boolean',
        description: 'Lift its retention lock (a governance lock; a compliance lock is refused); over HTTP, alone',
      },
    },
    remote: lockBackupRemotely,
    async run({ values, store, fileServices, operator }) {
      const timestamp = backupOption(values, 'backup')!;
      const change = lockChangeOptions(values);
      const channel = await channelFrom(await store(), values);
      const backup = backupJson(
        await (await fileServices()).backupLocks.change(channel, { ...operator, authority: 'operator' }, timestamp, change),
      );
      return {
        json: { channelId: channel.id, ...backup },
        text: terminalText`Backup ${backup.timestamp} of ${channel.id}: ${lockText(backup.lock, '') || 'not locked'}`,
      };
    },
  },
];
