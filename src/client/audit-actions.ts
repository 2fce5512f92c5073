import type { AuditQuery, TenantAuditQuery } from './types.ts';

/**
 * The values the audit logs' filters take, for a page to offer them (the console's filter forms).
 * test/client/client-types.unit.test.ts holds them equal to the service's own lists.
 */

/** What is done to a channel's files and backups: a channel log's actions. */
export const CHANNEL_AUDIT_ACTIONS: readonly NonNullable<AuditQuery['action']>[] = [
  'upload',
  'delete',
  'backup',
  'restore',
  'backup.delete',
  'backup.lock',
  'retention',
  'archive',
];

/** Every action of a tenant's log: its administration, its channels' and the chain's own. */
export const TENANT_AUDIT_ACTIONS: readonly NonNullable<TenantAuditQuery['action']>[] = [
  ...CHANNEL_AUDIT_ACTIONS,
  'admin.create',
  'admin.update',
  'admin.remove',
  'admin.sign-out',
  'wallet.add',
  'wallet.remove',
  'invitation.create',
  'invitation.revoke',
  'invitation.accept',
  'channel.create',
  'channel.update',
  'channel.link',
  'channel.unlink',
  'policy.change',
  'proposal.create',
  'proposal.approve',
  'proposal.withdraw',
  'proposal.close',
  'proposal.execute',
  'tenant.update',
  'tenant.create',
  'offsite.rebuild',
  'offsite.check',
  'offsite.drill',
  'webhook.create',
  'webhook.change',
  'webhook.delete',
  'offsite.change',
  'audit.chain-start',
];

export const AUDIT_RESULTS: readonly NonNullable<AuditQuery['result']>[] = ['ok', 'refused', 'failed'];
