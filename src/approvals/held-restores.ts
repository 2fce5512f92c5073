import { AppError } from '../errors/app-error.ts';
import type { Actor } from '../files/audit-trail.ts';
import type { ScopeRestoreOutcome, ScopeRestoreRequest, ScopeRestoreService } from '../files/scope-restore-service.ts';
import type { AdminRecords } from '../model/admins.ts';
import type { Proposal } from '../model/approvals.ts';
import type { Channel, ChannelLookup } from '../model/channels.ts';
import { type Held, ran } from './held.ts';
import { eligibleAdmins } from './policy-rules.ts';
import type { ProposalService } from './proposal-service.ts';

/** What a held folder or channel restore runs from. */
interface RestorePlan {
  folder: string | null;
  backupTimestamp: string | null;
  at: string | null;
  delete: boolean;
  changes: ScopeRestoreOutcome['changes'];
  unchanged: number;
}

/**
 * Folder and channel restores under the policies (operations folder.restore and channel.restore): a
 * restore that would change something is held when a rule names it, its plan (a dry run's) is what
 * the intents sign, and it runs later with that plan's ETag as If-Match, so it restores exactly what
 * was approved or nothing. Dry runs, and restores that change nothing, are never held.
 */
export class HeldRestores {
  constructor(
    private readonly proposals: ProposalService,
    private readonly restores: ScopeRestoreService,
    private readonly store: ChannelLookup & Pick<AdminRecords, 'getAdmin'>,
  ) {
    for (const operation of ['folder.restore', 'channel.restore'] as const) {
      proposals.register(operation, {
        currentEtag: async (proposal) => (await this.dryRun(proposal)).etag,
        run: async (proposal, intents, run) => {
          const { channel, plan } = await this.planOf(proposal);
          const outcome = await this.restores.restore(
            channel,
            { adminId: proposal.proposedBy, intents, run },
            { ...requestOf(plan), dryRun: false, precondition: { ifMatch: [{ weak: false, opaque: proposal.planEtag }] } },
          );
          return resultOf(outcome);
        },
        actsOn: (proposal) => ({
          actions: ['upload', 'delete', 'restore'],
          channelId: proposal.channelId,
          folder: (proposal.plan as unknown as RestorePlan).folder,
        }),
        // The run that died changed some of the files, and nobody else changed any (checked): the
        // same restore, planned again from here, does what is left; the undo stays the safety backup
        // it took before its first change, if it got that far.
        resume: async (proposal, intents, run, own) => {
          const { channel, plan } = await this.planOf(proposal);
          const taken = own.find((e) => e.action === 'backup' && e.backupTimestamp !== null)?.backupTimestamp ?? undefined;
          const outcome = await this.restores.restore(
            channel,
            { adminId: proposal.proposedBy, intents, run },
            { ...requestOf(plan), dryRun: false, safetyBackup: taken },
          );
          const earlier = own.filter((e) => e.filename !== null && (e.action === 'restore' || e.action === 'delete')).length;
          return { ...resultOf(outcome), resumed: true, filesBeforeInterruption: earlier };
        },
      });
    }
  }

  async restore(channel: Channel, actor: Actor & { adminId: string }, request: ScopeRestoreRequest): Promise<Held<ScopeRestoreOutcome>> {
    const operation = request.folder === undefined ? 'channel.restore' : 'folder.restore';
    if (request.dryRun || !(await this.proposals.holds(operation, channel.tenantId, channel.id))) {
      return ran(await this.restores.restore(channel, actor, request));
    }
    const planned = await this.restores.restore(channel, actor, { ...request, dryRun: true });
    if (planned.changes.length === 0) return ran(await this.restores.restore(channel, actor, request));
    const plan: RestorePlan = {
      folder: request.folder ?? null,
      backupTimestamp: request.backupTimestamp ?? null,
      at: request.at ?? null,
      delete: request.delete,
      changes: planned.changes,
      unchanged: planned.unchanged,
    };
    const proposal = await this.proposals.hold({
      operation,
      tenantId: channel.tenantId,
      channelId: channel.id,
      proposerId: actor.adminId,
      plan: plan as unknown as Record<string, unknown>,
      planEtag: planned.etag,
      summary: summaryOf(channel, plan),
      intent: {
        scope: plan.folder === null ? 'channel' : `folder:${plan.folder}`,
        source: plan.backupTimestamp !== null ? `backup:${plan.backupTimestamp}` : `at:${plan.at}`,
        delete: plan.delete,
      },
    });
    return proposal === undefined ? ran(await this.restores.restore(channel, actor, request)) : { proposal };
  }

  /** The plan as it would be now, computed as its proposer, who must still hold files:restore on the channel. */
  private async dryRun(proposal: Proposal): Promise<ScopeRestoreOutcome> {
    const { channel, plan } = await this.planOf(proposal);
    return this.restores.restore(channel, { adminId: proposal.proposedBy }, { ...requestOf(plan), dryRun: true });
  }

  private async planOf(proposal: Proposal): Promise<{ channel: Channel; plan: RestorePlan }> {
    const channel = proposal.channelId === null ? undefined : await this.store.getChannel(proposal.channelId);
    if (channel === undefined) throw new AppError('CHANNEL_NOT_FOUND', `The channel ${proposal.channelId} is gone`);
    if (channel.archivedAt !== null)
      throw new AppError('CHANNEL_ARCHIVED', `The channel ${channel.name} was archived: its files no longer change`);
    const proposer = await this.store.getAdmin(proposal.proposedBy);
    if (proposer === undefined || eligibleAdmins([proposer], 'files:restore', channel.id).length === 0) {
      throw new AppError(
        'PERMISSION_DENIED',
        `Its proposer ${proposal.proposedBy} no longer holds files:restore on the channel ${channel.name}`,
      );
    }
    return { channel, plan: proposal.plan as unknown as RestorePlan };
  }
}

function resultOf(outcome: ScopeRestoreOutcome): Record<string, unknown> {
  const counts = { replace: 0, create: 0, delete: 0 };
  for (const change of outcome.changes) counts[change.action]++;
  return {
    safetyBackup: outcome.safetyBackup,
    replaced: counts.replace,
    created: counts.create,
    deleted: counts.delete,
    unchanged: outcome.unchanged,
  };
}

const requestOf = (plan: RestorePlan): Omit<ScopeRestoreRequest, 'dryRun'> => ({
  folder: plan.folder ?? undefined,
  backupTimestamp: plan.backupTimestamp ?? undefined,
  at: plan.at ?? undefined,
  delete: plan.delete,
});

function summaryOf(channel: Channel, plan: RestorePlan): string {
  const counts = { replace: 0, create: 0, delete: 0 };
  for (const change of plan.changes) counts[change.action]++;
  const scope = plan.folder === null ? `the whole channel ${channel.name}` : `the folder ${plan.folder} of channel ${channel.name}`;
  const source = plan.backupTimestamp !== null ? `backup ${plan.backupTimestamp}` : `the instant ${plan.at}`;
  const deleting = plan.delete ? ', deleting the live files the backup lacks' : '';
  return `Restore ${scope} from ${source}${deleting}: ${counts.replace} replaced, ${counts.create} created, ${counts.delete} deleted`;
}
