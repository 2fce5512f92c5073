import { holds, isOwner } from '../administration/admin-rules.ts';
import { AppError } from '../errors/app-error.ts';
import type { Admin } from '../model/admins.ts';
import { CHANNEL_OPERATIONS, type HeldOperation, type Policy, type PolicyRule } from '../model/approvals.ts';

/**
 * What a policy holds and who counts (docs/approvals.md, "Policies"): plain functions over the
 * policies and the tenant's admins as stored now.
 */

/** VALIDATION_FAILED for what a policy cannot mean: a rule twice, or a tenant-only operation on a channel. */
export function checkRules(rules: readonly PolicyRule[], scope: 'tenant' | 'channel'): PolicyRule[] {
  const seen = new Set<string>();
  for (const rule of rules) {
    if (seen.has(rule.operation)) {
      throw new AppError('VALIDATION_FAILED', `rules names ${rule.operation} twice: one rule per operation`);
    }
    seen.add(rule.operation);
    if (scope === 'channel' && !CHANNEL_OPERATIONS.includes(rule.operation)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${rule.operation} acts on no channel: set its rule in the tenant's policy (PUT /api/policies); a channel's policy holds ${CHANNEL_OPERATIONS.join(', ')}`,
      );
    }
  }
  return rules.map(({ operation, approvals, permission }) => ({ operation, approvals, permission }));
}

/** The stricter of two rules: more approvals; on a tie, the later one (the channel's, more specific). */
function stricter(a: PolicyRule | undefined, b: PolicyRule | undefined): PolicyRule | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.approvals >= a.approvals ? b : a;
}

/** The rule that guards a change of `policy` itself: its own policy.change rule, or else its strictest rule. */
export function guardOf(policy: Policy): PolicyRule | undefined {
  const own = policy.rules.find((r) => r.operation === 'policy.change');
  if (own !== undefined) return own;
  let strictest: PolicyRule | undefined;
  for (const rule of policy.rules) strictest = stricter(strictest, rule);
  return strictest === undefined ? undefined : { ...strictest, operation: 'policy.change' };
}

/**
 * The rule an operation must meet: the tenant's and, on a channel, the channel's, whichever is
 * stricter, so that a channel policy tightens the tenant's and never loosens it. A policy change
 * is guarded by the policy it changes (guardOf) and the tenant's own policy.change rule.
 */
export function ruleFor(operation: HeldOperation, tenant: Policy, channel: Policy | undefined): PolicyRule | undefined {
  const named = (policy: Policy | undefined) => policy?.rules.find((r) => r.operation === operation);
  if (operation === 'policy.change') {
    const changed = channel ?? tenant;
    return stricter(named(tenant), guardOf(changed));
  }
  return stricter(named(tenant), named(channel));
}

/** Every permission some rule of the tenant counts: granting one of them makes an approver. */
export function countedPermissions(policies: readonly Policy[]): Set<string> {
  return new Set(policies.flatMap((p) => p.rules.map((r) => r.permission)));
}

/**
 * The admins whose intent counts for a rule: active, holding the permission and, for an operation
 * on a channel, holding the channel (linked, or an owner, who manages every channel).
 */
export function eligibleAdmins(admins: readonly Admin[], permission: string, channelId: string | null): Admin[] {
  return admins.filter(
    (a) =>
      a.removedAt === null &&
      a.status === 'ACTIVE' &&
      a.wallets.length > 0 &&
      holds(a, permission) &&
      (channelId === null || isOwner(a) || a.channelIds.includes(channelId)),
  );
}

/** POLICY_UNSATISFIABLE when a rule asks more approvals than there are admins who could give them. */
export function requireSatisfiable(rules: readonly PolicyRule[], admins: readonly Admin[], channelId: string | null): void {
  for (const rule of rules) {
    const able = eligibleAdmins(admins, rule.permission, channelId).length;
    if (able < rule.approvals) {
      throw new AppError(
        'POLICY_UNSATISFIABLE',
        `The rule for ${rule.operation} asks ${rule.approvals} approvals from admins holding ${rule.permission}${channelId === null ? '' : ' and this channel'}, ` +
          `and only ${able} active admin${able === 1 ? '' : 's'} could give one: nothing could ever run; add admins first or ask fewer approvals`,
        { operation: rule.operation, approvals: rule.approvals, eligible: able },
      );
    }
  }
}
