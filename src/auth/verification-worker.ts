import { parentPort, workerData } from 'node:worker_threads';
import type { AuthConfig } from '../config/config.ts';
import { answerJobs } from './check-wire.ts';
import { checkMessage } from './message-check.ts';
import { createAddressRecoverer } from './signature/address-recoverer.ts';

/**
 * A worker thread of the VerificationPool: checks new credentials (checkMessage) off the event
 * loop, a batch per message (in check-wire.ts's form), with the service's authentication settings (workerData).
 */
const config = workerData as AuthConfig;
const recoverer = createAddressRecoverer();

parentPort!.on('message', (batch: string) => {
  parentPort!.postMessage(answerJobs(batch, (input) => checkMessage(input, config, recoverer)));
});
