import { parentPort, workerData } from 'node:worker_threads';
import type { AuthConfig } from '../config/config.ts';
import { checkMessage, type MessageCheckInput } from './message-check.ts';
import { createAddressRecoverer } from './signature/address-recoverer.ts';

/**
 * A worker thread of the VerificationPool: checks new credentials (checkMessage) off the event
 * loop, a batch per message, with the service's authentication settings (workerData).
 */
const config = workerData as AuthConfig;
const recoverer = createAddressRecoverer();

parentPort!.on('message', (batch: { id: number; input: MessageCheckInput }[]) => {
  parentPort!.postMessage({
    ids: batch.map((job) => job.id),
    checks: batch.map((job) => checkMessage(job.input, config, recoverer)),
  });
});
