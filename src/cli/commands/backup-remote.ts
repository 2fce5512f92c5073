import type { Backup } from '../../client/index.ts';
import { backupLine, lockText } from '../backup-views.ts';
import { type CommandResult, optionalString, type RemoteContext, stringOption, UsageError } from '../command.ts';
import { backupOption } from '../option-checks.ts';
import { pageRequestOf, pageText } from '../paging.ts';
import { terminalText } from '../terminal-text.ts';
import { lockChangeOptions } from './backup-lock-options.ts';

/*
 * The backup commands over HTTP, as the signed-in admin: --channel is an id, or a name in its
 * tenant. A policy may hold a delete or a change of a lock (a proposal: main prints it and exits
 * 3); what the service answers otherwise is printed as the local mode prints it, --json as the API
 * answers it, with the channel as it was named.
 */

export async function createBackupRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const channel = stringOption(values, 'channel');
  const backup = await (await client()).createBackup(channel);
  return {
    json: { channel, ...backup },
    text: terminalText`Backup ${backup.timestamp} of ${channel}: ${backup.files} files, ${backup.bytes} bytes`,
  };
}

export async function listBackupsRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const pageRequest = pageRequestOf(values);
  const channel = stringOption(values, 'channel');
  const page = await (await client()).listBackups(channel, pageRequest);
  return { json: { ...page }, text: pageText(page.items.map(backupLine), page, terminalText`No backups of ${channel} yet`) };
}

export async function deleteBackupRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const timestamp = backupOption(values, 'backup')!;
  const channel = stringOption(values, 'channel');
  await (await client()).deleteBackup(channel, timestamp);
  return {
    json: { channel, timestamp, deleted: true },
    text: terminalText`Deleted backup ${timestamp} of ${channel}; the versions it named are now retention's to keep or remove`,
  };
}

export async function lockBackupRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const timestamp = backupOption(values, 'backup')!;
  const change = lockChangeOptions(values);
  const channel = stringOption(values, 'channel');
  let backup: Backup;
  if (change.retention === null) {
    // Locally one change; over HTTP lifting the lock (DELETE …/lock) and the hold (PUT …/lock) are two requests, which could half succeed.
    if (change.legalHold !== undefined) {
      throw new UsageError(
        'Over HTTP, --unlock goes alone (the API lifts a lock in a request of its own): run --legal-hold or --release-hold after it',
      );
    }
    backup = await (await client()).unlockBackup(channel, timestamp);
  } else {
    const retention = change.retention === undefined ? {} : { mode: change.retention.mode, until: optionalString(values, 'until')! };
    const hold = change.legalHold === undefined ? {} : { legalHold: change.legalHold };
    backup = await (await client()).lockBackup(channel, timestamp, { ...retention, ...hold });
  }
  return {
    json: { channel, ...backup },
    text: terminalText`Backup ${backup.timestamp} of ${channel}: ${lockText(backup.lock, '') || 'not locked'}`,
  };
}
