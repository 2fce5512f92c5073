import type { Admin, ScopeRestoreResult } from '../../client/index.ts';
import type { PolicyRule, Proposal } from '../approvals/types.ts';
import { useLoad } from '../ui/use-load.ts';
import { AdminName } from './admin-name.tsx';
import { ChangeSummary } from './change-summary.tsx';
import type { ViewContext } from './context.ts';
import { PlanChanges } from './plan-changes.tsx';
import { RuleList } from './rule-list.tsx';

type Fields = Record<string, unknown>;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);

interface ProposalPlanProps {
  ctx: ViewContext;
  proposal: Proposal;
  adminName(id: string): string | null;
}

/**
 * What a proposal will do, from its plan, shown the way the console shows that operation elsewhere:
 * a restore's files, an admin's fields before → after, what a new admin or invitation grants, a
 * policy's rules. A plan of another shape is shown as it is, so nothing the approvers sign is hidden.
 */
export function ProposalPlan({ ctx, proposal, adminName }: ProposalPlanProps) {
  const plan = proposal.plan;
  if (!isObject(plan)) return <RawPlan plan={plan} />;
  const admin = typeof plan.adminId === 'string' ? <AdminName id={plan.adminId} name={adminName(plan.adminId)} /> : null;
  switch (proposal.operation) {
    case 'folder.restore':
    case 'channel.restore': {
      const changes = (Array.isArray(plan.changes) ? plan.changes : []) as ScopeRestoreResult['changes'];
      return changes.length === 0 ? <p class="muted">No file changes.</p> : <PlanChanges changes={changes} />;
    }
    case 'admin.create':
    case 'invitation.create':
      // Nothing stored yet: what the new record will be created with.
      return isObject(plan.request) ? <ChangeSummary change={{ before: null, after: plan.request }} /> : <RawPlan plan={plan} />;
    case 'admin.change':
      return isObject(plan.request) && typeof plan.adminId === 'string' ? (
        <AdminChangePlan ctx={ctx} proposal={proposal} adminId={plan.adminId} request={plan.request} />
      ) : (
        <RawPlan plan={plan} />
      );
    case 'admin.remove':
      return <p>Removes the admin {admin}: their wallets stop signing in, and the admins below them move to the proposer.</p>;
    case 'wallet.add':
      return (
        <p>
          Adds the wallet <code>{String(plan.wallet)}</code> to the admin {admin}: it will sign in as them.
        </p>
      );
    case 'offsite.change':
      return <OffsitePlan plan={plan} />;
    case 'policy.change':
      return Array.isArray(plan.rules) ? (
        <RuleList rules={plan.rules as PolicyRule[]} label="The rules after the change" />
      ) : (
        <RawPlan plan={plan} />
      );
    default:
      return <RawPlan plan={plan} />;
  }
}

/**
 * An admin's change as before → after: the admin as they are now (while the proposal is pending,
 * that is what it changes) beside what the request sets. Without the right to read that admin, or
 * once the proposal is closed, the request alone.
 */
function AdminChangePlan({ ctx, proposal, adminId, request }: { ctx: ViewContext; proposal: Proposal; adminId: string; request: Fields }) {
  const pending = proposal.status === 'pending';
  const admin = useLoad(
    async () => (pending && ctx.can('admins:read') ? ctx.client.getAdmin(adminId).catch(() => undefined) : undefined),
    `${adminId}/${proposal.status}`,
  );
  const current = admin.data;
  const before = current ? fieldsOf(current, Object.keys(request)) : null;
  return <ChangeSummary change={{ before, after: request }} />;
}

/** The admin's fields that a change request names, as the request names them. */
function fieldsOf(admin: Admin, names: readonly string[]): Fields {
  const now: Fields = { displayName: admin.displayName, permissions: admin.effectivePermissions, status: admin.status };
  return Object.fromEntries(names.filter((name) => name in now).map((name) => [name, now[name]]));
}

/**
 * The tenant's off-site target a change sets, or that it stops shipping. The plan holds the bucket
 * key's secret, sealed: that is left out, as every view of the target leaves the secret out.
 */
function OffsitePlan({ plan }: { plan: Fields }) {
  if (plan.remove === true) {
    return <p>Stops shipping the tenant's own off-site copy. Nothing at the target is deleted.</p>;
  }
  if (!isObject(plan.set)) return <RawPlan plan={plan} />;
  const { secretSealed: _sealed, ...target } = plan.set;
  return (
    <>
      <ChangeSummary change={{ before: null, after: target }} />
      <p class="muted">The bucket key's secret goes with it, sealed: it is never shown.</p>
    </>
  );
}

function RawPlan({ plan }: { plan: unknown }) {
  return <pre class="intent-details">{JSON.stringify(plan, null, 2)}</pre>;
}
