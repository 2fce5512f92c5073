import type { ChannelInfo } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useLoad } from '../ui/use-load.ts';
import type { ViewContext } from './context.ts';
import { PolicyForm } from './policy-form.tsx';
import { RuleList } from './rule-list.tsx';

/**
 * A channel's own policy, beside the tenant's rules that apply to it too: for an operation both
 * name, the stricter wins, so the channel's rules can tighten the tenant's, never loosen them.
 */
export function ChannelPolicyDialog({ ctx, channel, onClose }: { ctx: ViewContext; channel: ChannelInfo; onClose(): void }) {
  const policy = useLoad(() => ctx.approvals.getChannelPolicy(channel.id), `channel-policy/${channel.id}`);
  return (
    <ConfirmDialog title={`Policy of ${channel.name}`} confirmLabel="Close" closeOnly onConfirm={onClose} onCancel={onClose}>
      <ProblemNotice error={policy.error} />
      {policy.loading && !policy.data && <p aria-live="polite">Loading the policy…</p>}
      {policy.data && (
        <>
          <h3>The tenant's rules</h3>
          <RuleList rules={policy.data.tenantRules ?? []} label="The tenant's rules" />
          <h3>This channel's rules</h3>
          <PolicyForm
            ctx={ctx}
            label={`Policy of ${channel.name}`}
            rules={policy.data.rules}
            editable={ctx.can('channels:manage')}
            save={(rules) => ctx.approvals.putChannelPolicy(channel.id, rules, policy.data?.etag)}
            onSaved={policy.reload}
          />
        </>
      )}
    </ConfirmDialog>
  );
}
