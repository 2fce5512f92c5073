import { createHash } from 'node:crypto';
import { isOwner } from '../administration/admin-rules.ts';
import { AppError } from '../errors/app-error.ts';
import type { LockChange } from '../files/backup-lock-rules.ts';
import type { BackupLocks, LockActor } from '../files/backup-locks.ts';
import type { RunLease } from '../model/actors.ts';
import type { AdminRecords } from '../model/admins.ts';
import type { Proposal, ProposalIntents } from '../model/approvals.ts';
import type { BackupLock, BackupRecord, Backups } from '../model/backups.ts';
import type { Channel, ChannelLookup } from '../model/channels.ts';
import { formatRfc3339 } from '../time/rfc3339.ts';
import { canonicalPlan } from './canonical-plan.ts';
import { type Held, ran } from './held.ts';
import type { ProposalService } from './proposal-service.ts';

/**
 * Deleting a backup and changing its lock under the policies (backup.delete, backup.lock): judged
 * by the lock rules when proposed (a century lock is refused then, LOCK_TOO_LONG, not proposed),
 * the backup's lock as it stands is the plan's ETag, and the proposal runs as its proposer with the
 * standing it has then (an owner, or not).
 */
export class HeldBackupLocks {
  constructor(
    private readonly proposals: ProposalService,
    private readonly locks: BackupLocks,
    private readonly store: ChannelLookup & Pick<AdminRecords, 'getAdmin'> & { files: Pick<Backups, 'getBackup'> },
  ) {
    const actsOn = (proposal: Proposal) => ({
      actions: ['backup.delete', 'backup.lock'],
      channelId: proposal.channelId,
      backupTimestamp: proposal.plan.timestamp as string,
    });
    const deleteIt = async (proposal: Proposal, intents: ProposalIntents, run: RunLease) => {
      const { channel, actor } = await this.contextOf(proposal);
      await this.locks.delete(channel, { ...actor, intents, run }, proposal.plan.timestamp as string);
      return { deleted: proposal.plan.timestamp as string };
    };
    proposals.register('backup.delete', {
      currentEtag: (proposal) => this.currentEtag(proposal),
      run: deleteIt,
      actsOn,
      // Deleted by the run that died (its entry is its own), or still to delete.
      resume: async (proposal, intents, run, own) =>
        own.some((e) => e.action === 'backup.delete') ? { deleted: proposal.plan.timestamp as string } : deleteIt(proposal, intents, run),
    });
    const lockIt = async (proposal: Proposal, intents: ProposalIntents, run: RunLease) => {
      const { channel, actor } = await this.contextOf(proposal);
      const backup = await this.locks.change(
        channel,
        { ...actor, intents, run },
        proposal.plan.timestamp as string,
        proposal.plan.change as LockChange,
      );
      return { timestamp: backup.timestamp, lock: lockView(backup.lock) };
    };
    proposals.register('backup.lock', {
      currentEtag: (proposal) => this.currentEtag(proposal),
      run: lockIt,
      actsOn,
      // A lock change judged again on the lock as it is: one the run that died made changes nothing more.
      resume: (proposal, intents, run) => lockIt(proposal, intents, run),
    });
  }

  async delete(channel: Channel, actor: LockActor, timestamp: string): Promise<Held<undefined>> {
    if (await this.proposals.holds('backup.delete', channel.tenantId, channel.id)) {
      const backup = await this.locks.previewDelete(channel, timestamp);
      const proposal = await this.proposals.hold({
        operation: 'backup.delete',
        tenantId: channel.tenantId,
        channelId: channel.id,
        proposerId: actor.adminId!,
        plan: { timestamp },
        planEtag: lockTag(backup),
        summary: `Delete the backup ${timestamp} of channel ${channel.name} (${backup.files} files): its versions then fall to retention`,
        intent: { source: `backup:${timestamp}`, target: timestamp },
      });
      if (proposal !== undefined) return { proposal };
    }
    await this.locks.delete(channel, actor, timestamp);
    return ran(undefined);
  }

  async change(channel: Channel, actor: LockActor, timestamp: string, change: LockChange): Promise<Held<BackupRecord>> {
    if (await this.proposals.holds('backup.lock', channel.tenantId, channel.id)) {
      const preview = await this.locks.preview(channel, actor, timestamp, change);
      if (preview !== undefined) {
        const proposal = await this.proposals.hold({
          operation: 'backup.lock',
          tenantId: channel.tenantId,
          channelId: channel.id,
          proposerId: actor.adminId!,
          plan: { timestamp, change },
          planEtag: lockTag(preview.backup),
          summary: `Change the lock of backup ${timestamp} of channel ${channel.name}: ${describe(preview.backup.lock)} → ${describe(preview.next)}`,
          intent: { source: `backup:${timestamp}`, target: timestamp },
        });
        if (proposal !== undefined) return { proposal };
      }
    }
    return ran(await this.locks.change(channel, actor, timestamp, change));
  }

  private async currentEtag(proposal: Proposal): Promise<string> {
    const timestamp = proposal.plan.timestamp as string;
    const backup = await this.store.files.getBackup(proposal.channelId!, timestamp);
    if (backup === undefined) throw new AppError('BACKUP_NOT_FOUND', `The backup ${timestamp} is gone`);
    return lockTag(backup);
  }

  private async contextOf(proposal: Proposal): Promise<{ channel: Channel; actor: LockActor }> {
    const channel = proposal.channelId === null ? undefined : await this.store.getChannel(proposal.channelId);
    if (channel === undefined) throw new AppError('CHANNEL_NOT_FOUND', `The channel ${proposal.channelId} is gone`);
    const proposer = await this.store.getAdmin(proposal.proposedBy);
    return { channel, actor: { adminId: proposal.proposedBy, authority: proposer !== undefined && isOwner(proposer) ? 'owner' : 'admin' } };
  }
}

/** A backup's lock as it stands: what a held delete or lock change acts on. */
const lockTag = (backup: BackupRecord): string =>
  `"${createHash('sha256')
    .update(canonicalPlan({ timestamp: backup.timestamp, lock: lockView(backup.lock) }))
    .digest('hex')}"`;

function lockView(lock: BackupLock | null): Record<string, unknown> | null {
  if (lock === null) return null;
  return { mode: lock.mode, until: lock.until === null ? null : formatRfc3339(lock.until), legalHold: lock.legalHold };
}

function describe(lock: BackupLock | null): string {
  if (lock === null) return 'no lock';
  const parts = [lock.mode === null ? '' : `${lock.mode} until ${formatRfc3339(lock.until!)}`, lock.legalHold ? 'legal hold' : ''].filter(
    (p) => p !== '',
  );
  return parts.length === 0 ? 'no lock' : parts.join(' and ');
}
