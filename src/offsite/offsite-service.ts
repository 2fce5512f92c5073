import { parseRecipients } from '../age/age-keys.ts';
import type { BlobStorage } from '../blobs/blob-storage.ts';
import type { OffsiteConfig } from '../config/offsite-config.ts';
import type { Logger } from '../logging/logger.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { Metrics } from '../observability/metrics.ts';
import { checkCopy } from './offsite-check.ts';
import { lagSeconds } from './offsite-status.ts';
import { OffsiteShipper } from './shipper.ts';
import { openOffsiteTarget } from './target/open-offsite-target.ts';

export interface Offsite {
  shipper: OffsiteShipper | undefined;
  close(): Promise<void>;
}

/** The lease of the instance that ships: another takes over this long after it stops renewing it. */
const LEASE_MS = 30_000;

/**
 * Off-site copies at start-up (docs/offsite.md): with OFFSITE_URL the database captures every
 * change and this instance ships them (when it holds the lease); without it the capture is
 * removed, so that a service with no target pays nothing for one.
 */
export async function startOffsite(options: {
  config: OffsiteConfig | undefined;
  store: MetadataStore;
  blobs: BlobStorage;
  logger: Logger;
  metrics: Metrics;
}): Promise<Offsite> {
  const { config, store, logger, metrics } = options;
  if (config === undefined) {
    if (await store.offsite.removeCapture()) {
      logger.warn({}, 'OFFSITE_URL is not set: off-site capture is turned off; a later start with it ships a new snapshot');
    }
    return { shipper: undefined, close: async () => undefined };
  }
  const startedAt = Date.now();
  const target = await openOffsiteTarget(config.target, config.s3 && { ...config.s3, lockDays: config.lockDays });
  // A write a crash cut short leaves a temporary file in a directory target; one an hour old is nobody's.
  await target
    .removeLeftovers(3_600_000)
    .catch((err: unknown) => logger.warn({ err }, 'could not remove leftovers of cut writes at the off-site target'));
  const { wasInstalled } = await store.offsite.installCapture();
  if (!wasInstalled && (await store.offsite.state()) !== undefined) await store.offsite.requireSnapshot();
  const shipper = new OffsiteShipper({
    store,
    blobs: options.blobs,
    target,
    recipients: parseRecipients(config.recipients.join(',')),
    logger,
    intervalMs: config.shipIntervalMs,
    leaseMs: LEASE_MS,
    snapshotEveryMs: config.snapshotIntervalSeconds * 1000,
    keepDays: config.keepDays,
    lockDays: config.lockDays,
  });
  metrics.gauge('offsite_lag_seconds', 'Seconds since the oldest change not yet at the off-site target (0: none)', async () => {
    const { oldestAt } = await store.offsite.backlog();
    const state = await store.offsite.state();
    return lagSeconds(state, oldestAt, Date.now(), startedAt);
  });
  metrics.gauge(
    'offsite_changes_pending',
    'Captured changes not yet at the off-site target',
    async () => (await store.offsite.backlog()).changes,
  );
  metrics.gauge(
    'offsite_bytes_shipped',
    'Bytes written to the off-site target since shipping to it began',
    async () => (await store.offsite.state())?.bytesShipped,
  );
  metrics.gauge('offsite_check_ok', 'The last check of the off-site copy: 1 passed, 0 failed or none yet', async () => {
    const last = (await store.offsite.state())?.lastCheck;
    return last === null || last === undefined ? undefined : last.startsWith('ok') ? 1 : 0;
  });
  metrics.gauge('offsite_drill_ok', 'The last drill of the off-site copy: 1 passed, 0 failed or none yet', async () => {
    const last = (await store.offsite.state())?.lastDrill;
    return last === null || last === undefined ? undefined : last.startsWith('ok') ? 1 : 0;
  });
  shipper.start();
  let checking: Promise<unknown> | undefined;
  const check =
    config.checkIntervalSeconds > 0
      ? setInterval(() => {
          checking ??= (async () => {
            if (await shipper.shipsNow()) await checkCopy(store, target, logger);
          })()
            .catch((err: unknown) => logger.error({ err }, 'the scheduled off-site check could not run; the next one tries again'))
            .finally(() => (checking = undefined));
        }, config.checkIntervalSeconds * 1000)
      : undefined;
  check?.unref();
  return {
    shipper,
    async close() {
      clearInterval(check);
      await checking;
      await shipper.stop();
      await target.close();
    },
  };
}
