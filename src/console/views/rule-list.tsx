import type { PolicyRule } from '../approvals/types.ts';

/** A policy's rules read aloud: "channel.restore: 2 approvals of admins with files:restore". */
export function RuleList({ rules, label }: { rules: readonly PolicyRule[]; label: string }) {
  if (rules.length === 0) return <p class="muted">No rules: every operation runs at once.</p>;
  return (
    <ul class="plain-list rule-list" aria-label={label}>
      {rules.map((rule) => (
        <li key={rule.operation}>
          <code>{rule.operation}</code>: {rule.approvals} {rule.approvals === 1 ? 'approval' : 'approvals'} of admins with{' '}
          <code>{rule.permission}</code>
        </li>
      ))}
    </ul>
  );
}
