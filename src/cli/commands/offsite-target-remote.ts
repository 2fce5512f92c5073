import type { CommandResult, RemoteContext } from '../command.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';
import { settingsOf } from './offsite-target-options.ts';
import { offsiteTargetDetails, offsiteTestText } from './offsite-target-views.ts';

/*
 * The tenant's own off-site target over HTTP, as the signed-in admin (offsite:manage; docs/offsite.md,
 * "A tenant's own copy"): the service decides what it may do and whether a policy holds it (then
 * the client throws HeldForApproval, which main prints as every held command does, exit 3).
 */

export async function showTargetRemotely({ client }: RemoteContext): Promise<CommandResult> {
  const target = await (await client()).getOffsite();
  return { json: { ...target }, text: offsiteTargetDetails(target) };
}

export async function setTargetRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  // Checked and read before signing in: a malformed option costs no password and no request.
  const settings = await settingsOf(values);
  const target = await (await client()).setOffsite(settings);
  return {
    json: { ...target },
    text: terminalLines([
      terminalText`Set: the service ships the tenant's copy to ${target.url} from its next round (OFFSITE_TENANT_INTERVAL); the secret is not shown again`,
      offsiteTargetDetails(target),
    ]),
  };
}

export async function removeTargetRemotely({ client }: RemoteContext): Promise<CommandResult> {
  await (await client()).removeOffsite();
  return {
    json: { removed: true },
    text: terminalText`Removed the tenant's off-site target: nothing more is shipped there, and nothing there was deleted`,
  };
}

export async function testTargetRemotely({ client }: RemoteContext): Promise<CommandResult> {
  const result = await (await client()).testOffsite();
  return { json: { ...result }, text: offsiteTestText(result) };
}
