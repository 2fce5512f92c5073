import { isAppError } from '../errors/app-error.ts';
import type { Logger } from '../logging/logger.ts';
import type { Backups } from '../model/backups.ts';
import type { ChannelLookup } from '../model/channels.ts';
import type { LiveFiles } from '../model/files.ts';
import type { ChannelHistory } from '../model/history.ts';
import type { BackupService } from './backup-service.ts';
import type { Retention } from './retention.ts';

/** Retention also runs without scheduled backups, so that its settings hold whatever makes backups. */
const RETENTION_INTERVAL_MS = 3_600_000;
/** The longest a public copy stays behind its record when its writer could not bring it in line. */
const PUBLIC_COPIES_INTERVAL_MS = 60_000;
const SERVICE = { adminId: null };

export interface BackupSchedulerDeps {
  store: Pick<ChannelLookup, 'getChannel'>;
  catalog: Backups & ChannelHistory & LiveFiles;
  backups: BackupService;
  retention: Retention;
  /** Removes the bytes of writes never recorded, journalled before `startedBefore` (write-journal.ts). */
  settleJournal: (startedBefore: number) => Promise<number>;
  /** With S3_PUBLIC_BASE_URL: brings the public copies still behind their records in line (public-copies.ts). */
  catchUpPublicCopies?: (() => Promise<number>) | undefined;
  /** BACKUP_INTERVAL; 0 = no scheduled backups. */
  intervalSeconds: number;
  logger: Logger;
}

/**
 * Scheduled backups of every channel whose files changed since its last backup, then retention;
 * retention alone once an hour, with the settling of the write journal. One run at a time; a
 * failure is logged and the next run tries again.
 */
export class BackupScheduler {
  private timers: NodeJS.Timeout[] = [];
  private running: Promise<void> | undefined;
  private catchingUp: Promise<unknown> | undefined;

  constructor(private readonly deps: BackupSchedulerDeps) {}

  start(): void {
    const every = (ms: number, work: () => Promise<void>) => {
      const timer = setInterval(() => void this.runExclusively(work), ms);
      timer.unref();
      this.timers.push(timer);
    };
    if (this.deps.intervalSeconds > 0) every(this.deps.intervalSeconds * 1000, () => this.backUpAndPrune());
    every(RETENTION_INTERVAL_MS, () => this.pruneAll());
    const catchUp = this.deps.catchUpPublicCopies;
    if (catchUp) {
      // Beside the runs above, never behind them: a long backup run must not hold the copies back.
      const timer = setInterval(() => {
        this.catchingUp ??= catchUp()
          .catch((err: unknown) => this.deps.logger.error({ err }, 'bringing public copies in line failed; the next run tries again'))
          .finally(() => (this.catchingUp = undefined));
      }, PUBLIC_COPIES_INTERVAL_MS);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Stops the timers and waits for a run in progress, so that the store can close under it safely. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    await this.running;
    await this.catchingUp;
  }

  /** One scheduled run now (tests, and the timer). */
  runOnce(): Promise<void> {
    return this.runExclusively(() => this.backUpAndPrune());
  }

  private async runExclusively(work: () => Promise<void>): Promise<void> {
    if (this.running) return this.running;
    this.running = work()
      .catch((err: unknown) => this.deps.logger.error({ err }, 'scheduled backup or retention run failed; the next run tries again'))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async backUpAndPrune(): Promise<void> {
    for (const channelId of await this.deps.catalog.channelsWithFiles()) {
      await this.forChannel(channelId, async () => {
        const channel = await this.deps.store.getChannel(channelId);
        if (channel === undefined) return;
        if (await this.changedSinceLastBackup(channelId)) await this.deps.backups.create(channel, SERVICE, 'schedule');
        await this.deps.retention.apply(channel);
      });
    }
  }

  private async pruneAll(): Promise<void> {
    for (const channelId of await this.deps.catalog.channelsWithFiles()) {
      await this.forChannel(channelId, async () => {
        const channel = await this.deps.store.getChannel(channelId);
        if (channel !== undefined) await this.deps.retention.apply(channel);
      });
    }
    // A write undone while its database or storage was unreachable leaves its entry (and maybe its
    // bytes) behind; an hour is far longer than any write that is still running would hold it.
    const settled = await this.deps.settleJournal(Date.now() - RETENTION_INTERVAL_MS);
    if (settled > 0) this.deps.logger.warn({ settled }, 'removed the bytes of writes that were never recorded');
  }

  /** One channel's failure must not keep the others from their backups. */
  private async forChannel(channelId: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (err) {
      // A manual backup in the same second already holds what this one would have.
      if (isAppError(err) && err.code === 'BACKUP_EXISTS') return;
      this.deps.logger.error({ err, channelId }, 'scheduled backup or retention of a channel failed');
    }
  }

  /** An unchanged channel gets no new backup: nothing written since the newest backup's instant. */
  private async changedSinceLastBackup(channelId: string): Promise<boolean> {
    const clock = await this.deps.catalog.clock(channelId);
    if (clock.files === 0) return false;
    const [newest] = (await this.deps.catalog.listBackups(channelId, { limit: 1 })).items;
    if (newest === undefined) return true;
    if (newest.seq !== null && newest.seq !== undefined) return clock.seq > newest.seq;
    // The newest backup is from before instant backups: compare the files, as then.
    const files = await this.deps.catalog.allFiles(channelId);
    if (newest.files !== files.length) return true;
    return files.some((file) => file.updatedAt >= newest.createdAt);
  }
}
