import type { Command } from './command.ts';
import { adminCommands } from './commands/admin-commands.ts';
import { auditCommands } from './commands/audit-commands.ts';
import { backupCommands } from './commands/backup-commands.ts';
import { channelCommands } from './commands/channel-commands.ts';
import { fileCommands } from './commands/file-commands.ts';
import { invitationCommands } from './commands/invitation-commands.ts';
import { offsiteCommands } from './commands/offsite-commands.ts';
import { offsiteTargetCommands } from './commands/offsite-target-commands.ts';
import { policyCommands } from './commands/policy-commands.ts';
import { profileCommands } from './commands/profile-commands.ts';
import { profileSignInCommand } from './commands/profile-sign-in-command.ts';
import { proposalCommands } from './commands/proposal-commands.ts';
import { scopeRestoreCommands } from './commands/scope-restore-commands.ts';
import { serveCommand } from './commands/serve-command.ts';
import { signCommand } from './commands/sign-command.ts';
import { tenantCommands } from './commands/tenant-commands.ts';
import { walletCommands } from './commands/wallet-commands.ts';
import { eventsForgetCommand, eventsStatusCommand, webhookCommands } from './commands/webhook-commands.ts';

/** Every command of `wallet-admin`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  ...tenantCommands,
  ...adminCommands,
  ...invitationCommands,
  ...walletCommands,
  ...channelCommands,
  ...backupCommands,
  ...fileCommands,
  ...scopeRestoreCommands,
  ...auditCommands,
  ...webhookCommands,
  eventsStatusCommand,
  eventsForgetCommand,
  ...offsiteCommands,
  ...offsiteTargetCommands,
  ...policyCommands,
  ...proposalCommands,
  signCommand,
  ...profileCommands,
  profileSignInCommand,
];

/**
 * The groups of commands: every run of leading words that begins a longer command (tenant, tenant
 * feature), which `wallet-admin GROUP --help` answers with its subcommands.
 */
export function commandGroups(commands: readonly Command[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const command of commands) {
    for (let length = 1; length < command.words.length; length++) {
      const group = command.words.slice(0, length);
      groups.set(group.join(' '), group);
    }
  }
  return [...groups.values()];
}
