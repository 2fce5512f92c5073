import type { ScopeRestoreResult } from '../../client/index.ts';
import type { PolicyRule, Proposal } from '../approvals/types.ts';
import { ChangeSummary } from './change-summary.tsx';
import { PlanChanges } from './plan-changes.tsx';
import { RuleList } from './rule-list.tsx';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What a proposal will do, from its plan, shown the way the console shows that operation elsewhere:
 * a restore's file-by-file changes, an admin's fields before → after, a policy's rules. A plan of
 * another shape is shown as it is, so nothing the approvers sign is hidden.
 */
export function ProposalPlan({ proposal }: { proposal: Proposal }) {
  const plan = proposal.plan;
  if (!isObject(plan)) return <RawPlan plan={plan} />;
  if (Array.isArray(plan.changes)) {
    const changes = plan.changes as ScopeRestoreResult['changes'];
    return changes.length === 0 ? <p class="muted">No file changes.</p> : <PlanChanges changes={changes} />;
  }
  if (isObject(plan.before) || isObject(plan.after)) {
    return (
      <ChangeSummary change={{ before: isObject(plan.before) ? plan.before : null, after: isObject(plan.after) ? plan.after : null }} />
    );
  }
  if (Array.isArray(plan.rules)) return <RuleList rules={plan.rules as PolicyRule[]} label="The policy's rules after the change" />;
  return <RawPlan plan={plan} />;
}

function RawPlan({ plan }: { plan: unknown }) {
  return <pre class="intent-details">{JSON.stringify(plan, null, 2)}</pre>;
}
