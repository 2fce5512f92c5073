import type { Proposal } from '../../client/index.ts';
import { type TerminalText, terminalLines, terminalText } from '../terminal-text.ts';

/** What the CLI prints of a proposal (docs/approvals.md, "Proposals"); --json prints it as the API answers it. */

/** "1/2": the intents counted of those required. */
function tally(proposal: Proposal): string {
  return `${proposal.approvalsCounted}/${proposal.required}`;
}

/** One line of `proposal list`. */
export function proposalLine(proposal: Proposal): TerminalText {
  return terminalText`${proposal.id}  ${proposal.status}  ${proposal.operation}  ${tally(proposal)}  ${proposal.summary}`;
}

/** After an approval or a withdrawal: where the proposal stands now. */
export function proposalOutcome(verb: string, proposal: Proposal): TerminalText {
  const reason = proposal.reason === null ? '' : `: ${proposal.reason}`;
  return terminalText`${verb} proposal ${proposal.id} (${proposal.summary}): ${tally(proposal)} approvals counted; ${proposal.status}${reason}`;
}

/** Every line of a JSON value, pretty-printed, each shown safely (a plan names stored files and folders). */
function jsonLines(value: unknown, indent: string): TerminalText[] {
  return JSON.stringify(value, null, 2)
    .split('\n')
    .map((line) => terminalText`${indent}${line}`);
}

/** An admin as the proposal names it: "Sam Second (adm_…)", or the id alone. */
function named(proposal: Proposal, id: string): string {
  const name = proposal.adminNames[id];
  return name === undefined ? id : `${name} (${id})`;
}

/**
 * `proposal show`: what it will do (the summary and the plan), the typed data's fields as a wallet
 * shows them before signing (so the two can be compared), the approvals n/m, and its status.
 */
export function proposalDetails(proposal: Proposal): TerminalText {
  const { domain, message } = proposal.typedData;
  const lines: TerminalText[] = [
    terminalText`Proposal ${proposal.id}: ${proposal.operation}, ${proposal.status}`,
    terminalText`  ${proposal.summary}`,
    terminalText`Proposed by ${named(proposal, proposal.proposedBy)} at ${proposal.createdAt}; expires ${proposal.expiresAt}`,
    terminalText`Approvals: ${tally(proposal)} counted (admins holding ${proposal.permission}: ${proposal.eligibleAdminIds.map((id) => named(proposal, id)).join(', ') || 'none'})`,
    ...proposal.approvals.map(
      (a) => terminalText`  ${named(proposal, a.adminId)}  ${a.wallet}  ${a.kind}  ${a.approvedAt}${a.counts ? '' : '  (does not count)'}`,
    ),
  ];
  if (proposal.reason !== null) lines.push(terminalText`Reason: ${proposal.reason}`);
  if (proposal.result !== null) lines.push(terminalText`Result:`, ...jsonLines(proposal.result, '  '));
  lines.push(terminalText`Plan (tag ${proposal.planEtag}):`, ...jsonLines(proposal.plan, '  '));
  lines.push(terminalText`Typed data (EIP-712; domain ${domain.name} version ${domain.version}, chain ${String(domain.chainId)}):`);
  for (const [field, value] of Object.entries(message)) {
    // details is the summary, then the plan as canonical JSON: one line each.
    const [first = '', ...more] = String(value).split('\n');
    lines.push(terminalText`  ${field}: ${first}`, ...more.map((line) => terminalText`    ${line}`));
  }
  return terminalLines(lines);
}
