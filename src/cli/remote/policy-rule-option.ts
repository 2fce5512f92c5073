import type { PolicyRule } from '../../client/index.ts';
import { HELD_OPERATIONS, type HeldOperation, MAX_APPROVALS } from '../../model/approvals.ts';
import { ALL_PERMISSIONS } from '../../model/permissions.ts';
import { type OptionValues, UsageError } from '../command.ts';
import { isPermission } from './permission-option.ts';

/** `channel.restore=2:files:restore`: the operation, then how many approvals, then the permission (which holds a colon itself). */
const RULE = /^([^=]+)=(\d+):(.+)$/;

/** How a rule is written on the command line, and in its output (policy show prints what policy set takes). */
export function ruleText(rule: PolicyRule): string {
  return `${rule.operation}=${rule.approvals}:${rule.permission}`;
}

/**
 * The rules of `policy set`: every --rule OPERATION=APPROVALS:PERMISSION, or none with --none (so that
 * dropping every rule is said, never the accident of a forgotten option). Checked here, naming the
 * option, before anything is sent; the service checks again (a rule twice, one no channel may hold).
 */
export function policyRulesOption(values: OptionValues): PolicyRule[] {
  const given = (values.rule as string[] | undefined) ?? [];
  if (values.none === true) {
    if (given.length > 0) throw new UsageError('Give --rule … or --none, not both');
    return [];
  }
  if (given.length === 0) throw new UsageError('Give at least one --rule OPERATION=APPROVALS:PERMISSION, or --none to drop every rule');
  return given.map(parseRule);
}

function parseRule(text: string): PolicyRule {
  const shown = text.slice(0, 120);
  const match = RULE.exec(text);
  if (!match) throw new UsageError(`--rule must be OPERATION=APPROVALS:PERMISSION, as channel.restore=2:files:restore (got "${shown}")`);
  const [, operation, approvals, permission] = match as unknown as [string, string, string, string];
  if (!(HELD_OPERATIONS as readonly string[]).includes(operation)) {
    throw new UsageError(`--rule names an unknown operation "${operation.slice(0, 80)}"; the operations are ${HELD_OPERATIONS.join(', ')}`);
  }
  const count = Number(approvals);
  if (count < 1 || count > MAX_APPROVALS) {
    throw new UsageError(`--rule ${operation}: approvals must be from 1 to ${MAX_APPROVALS} (got ${approvals.slice(0, 20)})`);
  }
  if (!isPermission(permission))
    throw new UsageError(
      `--rule ${operation}: unknown permission "${permission.slice(0, 80)}"; the permissions are ${ALL_PERMISSIONS.join(', ')}`,
    );
  return { operation: operation as HeldOperation, approvals: count, permission };
}
