import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../errors/app-error.ts';
import { PACKAGE_ROOT } from '../../package-root.ts';
import type { RecoverableSignature } from './parse-signature.ts';

/** Recovers the signer of a personal_sign signature: the lowercase address, or undefined when no key fits. */
export interface SignerRecovery {
  recoverSigner(message: Uint8Array, signature: RecoverableSignature): Promise<string | undefined> | string | undefined;
  close(): Promise<void>;
}

const WORKER_FILE = path.join(PACKAGE_ROOT, 'src/auth/signature/recovery-worker.mjs');
/** Recoveries waiting beyond which new ones are done on the event loop itself: the queue never grows without bound. */
const MAX_QUEUED = 10_000;

interface Job {
  id: number;
  message: Uint8Array;
  compact: Uint8Array;
  recovery: 0 | 1;
}

interface Waiting {
  resolve(signer: string | undefined): void;
  reject(error: Error): void;
}

/**
 * Signature recovery on worker threads. A recovery is most of a new sign-in's cost (about 70 µs
 * with native libsecp256k1); on the event loop it holds every other request meanwhile. Here the
 * recoveries asked for in one turn of the event loop go to a worker as one batch (one message each
 * way, whatever the batch holds), and the event loop serves other requests until the answers come.
 * With several workers, batches take turns. When too many are queued, or the workers are gone,
 * `inline` recovers on the event loop, as a service without workers does.
 */
export class RecoveryPool implements SignerRecovery {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, Waiting>();
  private readonly owner = new Map<number, Worker>();
  private batch: Job[] = [];
  private nextId = 0;
  private nextWorker = 0;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly inline: (message: Uint8Array, signature: RecoverableSignature) => string | undefined,
    private readonly onWorkerError: (error: Error) => void,
  ) {}

  recoverSigner(message: Uint8Array, signature: RecoverableSignature): Promise<string | undefined> | string | undefined {
    if (this.closed || this.waiting.size >= MAX_QUEUED) return this.inline(message, signature);
    // Started at the first sign-in that needs one: a service that never sees a new message starts none.
    while (this.workers.length < this.size) this.workers.push(this.startWorker());
    const id = this.nextId++;
    if (this.batch.length === 0) setImmediate(() => this.send());
    this.batch.push({ id, message, compact: signature.compact, recovery: signature.recovery });
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((worker) => worker.terminate()));
    this.failAll(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
  }

  private send(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    const worker = this.workers[this.nextWorker++ % this.workers.length];
    if (worker === undefined) {
      for (const job of batch) this.settle(job.id, this.inline(job.message, { compact: job.compact, recovery: job.recovery }));
      return;
    }
    for (const job of batch) this.owner.set(job.id, worker);
    worker.postMessage(batch);
  }

  private settle(id: number, signer: string | undefined): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    this.owner.delete(id);
    waiting?.resolve(signer);
  }

  private startWorker(): Worker {
    // No loader of the parent's (tsx in tests): the worker is plain JavaScript.
    const worker = new Worker(WORKER_FILE, { execArgv: [] });
    // A worker must never keep the process alive: closing the service ends it, a stop signal too.
    worker.unref();
    worker.on('message', ({ ids, signers }: { ids: number[]; signers: (string | null)[] }) => {
      for (let i = 0; i < ids.length; i++) this.settle(ids[i]!, signers[i] ?? undefined);
    });
    worker.on('error', (error) => this.onWorkerError(error));
    worker.on('exit', () => {
      if (this.closed) return;
      // Its unanswered recoveries are failed, and a new worker takes its place.
      for (const [id, owner] of this.owner) {
        if (owner !== worker) continue;
        this.owner.delete(id);
        const waiting = this.waiting.get(id);
        this.waiting.delete(id);
        waiting?.reject(new AppError('INTERNAL_ERROR', 'The signature check stopped unexpectedly; try again'));
      }
      const index = this.workers.indexOf(worker);
      if (index >= 0) this.workers.splice(index, 1, this.startWorker());
    });
    return worker;
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
    this.owner.clear();
    this.batch = [];
  }
}
