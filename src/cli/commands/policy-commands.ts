import type { Policy, PolicyRule } from '../../client/index.ts';
import type { Command, CommandResult, RemoteContext } from '../command.ts';
import { optionalString } from '../command.ts';
import { policyRulesOption, ruleText } from '../remote/policy-rule-option.ts';
import { type TerminalText, terminalLines, terminalText } from '../terminal-text.ts';

/*
 * Quorum policies over HTTP (docs/approvals.md, "Policies"): the tenant's, or a channel's with
 * --channel. A change the policy in force guards is held like any other: main prints the proposal
 * and exits 3.
 */

const channelOption = {
  type: 'string',
  placeholder: 'ID|NAME',
  description: "A channel's own policy (id or name) instead of the tenant's",
} as const;

function rulesLines(rules: readonly PolicyRule[]): TerminalText[] {
  return rules.map((rule) => terminalText`  ${ruleText(rule)}`);
}

function policyText(policy: Policy): TerminalText {
  const whose = policy.channelId === null ? terminalText`the tenant ${policy.tenantId}` : terminalText`channel ${policy.channelId}`;
  const lines = [terminalText`Policy of ${whose} (revision ${String(policy.revision)}):`];
  lines.push(...(policy.rules.length > 0 ? rulesLines(policy.rules) : [terminalText`  no rules`]));
  // A channel's operations follow the tenant's rules too (the stricter wins): shown, so nobody reads a channel as unguarded.
  if (policy.tenantRules !== undefined && policy.tenantRules.length > 0) {
    lines.push(terminalText`The tenant's rules apply too (the stricter wins):`, ...rulesLines(policy.tenantRules));
  }
  return terminalLines(lines);
}

async function showPolicy({ values, client }: RemoteContext): Promise<CommandResult> {
  const api = await client();
  const channel = optionalString(values, 'channel');
  const policy = channel === undefined ? await api.getPolicy() : await api.getChannelPolicy(channel);
  return { json: { ...policy }, text: policyText(policy) };
}

async function setPolicy({ values, client }: RemoteContext): Promise<CommandResult> {
  // Checked before signing in: a malformed rule costs no password and no request.
  const rules = policyRulesOption(values);
  const api = await client();
  const channel = optionalString(values, 'channel');
  const policy = channel === undefined ? await api.putPolicy(rules) : await api.putChannelPolicy(channel, rules);
  return { json: { ...policy }, text: policyText(policy) };
}

export const policyCommands: Command[] = [
  {
    words: ['policy', 'show'],
    summary: "Show the tenant's quorum policy, or a channel's with the tenant's rules that apply to it",
    options: { channel: channelOption },
    remote: showPolicy,
  },
  {
    words: ['policy', 'set'],
    summary: "Replace the tenant's (or a channel's) quorum rules; held for approval when the policy in force guards its change",
    options: {
      channel: channelOption,
      rule: {
        type: 'string',
        multiple: true,
        placeholder: 'OP=N:PERMISSION',
        description: 'A rule, repeatable: OPERATION needs intents from N admins holding PERMISSION (channel.restore=2:files:restore)',
      },
      none: { type: 'boolean', description: 'No rules: every operation runs at once' },
    },
    remote: setPolicy,
  },
];
