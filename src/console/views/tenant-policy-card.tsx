import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { ViewContext } from './context.ts';
import { PolicyForm } from './policy-form.tsx';

/** The tenant's policy: every admin reads it, an owner changes it (a change the policy holds asks for approval first). */
export function TenantPolicyCard({ ctx }: { ctx: ViewContext }) {
  const policy = useLoad(() => ctx.approvals.getPolicy(), 'tenant-policy');
  const owner = ctx.signedIn.me.principal.ownerAdminId === 'N/A';
  return (
    <section class="card" aria-labelledby="tenant-policy-title">
      <h2 id="tenant-policy-title">Tenant policy</h2>
      <p class="muted">
        Which dangerous operations wait for approvals, and from whom. A channel's policy can make its operations stricter, never weaker.
        {owner ? '' : ' Only an owner changes it.'}
      </p>
      <ProblemNotice error={policy.error} />
      {policy.data && (
        <PolicyForm
          ctx={ctx}
          label="Tenant policy"
          rules={policy.data.rules}
          editable={owner}
          save={(rules) => ctx.approvals.putPolicy(rules, policy.data?.etag)}
          onSaved={policy.reload}
        />
      )}
    </section>
  );
}
