import type { Logger } from '../logging/logger.ts';
import type { ApprovalRecords } from '../model/approvals.ts';
import type { ProposalService } from './proposal-service.ts';

/** Lapsed runs looked at per sweep: more wait for the next one, a fraction of a lease later. */
const PER_SWEEP = 20;

/**
 * Finds the proposals whose run's lease lapsed (the instance running them died, or stopped
 * answering) and has ProposalService.takeOver complete or fail each, on every instance: of instances
 * sweeping at once, exactly one takes a run (the lease's compare-and-set). Sweeps at start, then
 * every half lease, so that a run is never left `running` for longer than about 1.5 leases.
 */
export class RunTakeovers {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly records: Pick<ApprovalRecords, 'lapsedRuns'>,
    private readonly proposals: Pick<ProposalService, 'takeOver'>,
    private readonly leaseMs: number,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    void this.sweepOnce();
    this.timer = setInterval(() => void this.sweepOnce(), Math.max(500, Math.floor(this.leaseMs / 2)));
    this.timer.unref();
  }

  /** Stops the timer and waits for a sweep in progress, so that the store can close under it. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
  }

  /** One sweep now (the timer, and tests); a sweep already running is joined, not doubled. */
  sweepOnce(): Promise<void> {
    this.sweeping ??= this.sweep().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweep(): Promise<void> {
    let lapsed: { id: string; tenantId: string }[];
    try {
      lapsed = await this.records.lapsedRuns(this.now(), PER_SWEEP);
    } catch (err) {
      this.logger.warn({ err }, 'could not look for interrupted proposal runs; the next sweep tries again');
      return;
    }
    for (const { id, tenantId } of lapsed) {
      try {
        await this.proposals.takeOver(tenantId, id);
      } catch (err) {
        // Its run failed while taken over: takeOver marked it failed; one run's failure must not keep the others waiting.
        this.logger.error({ err, proposalId: id }, 'an interrupted proposal run failed when taken over');
      }
    }
  }
}
