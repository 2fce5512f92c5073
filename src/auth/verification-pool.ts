import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { PACKAGE_ROOT } from '../package-root.ts';
import { encodeJobs, readAnswers } from './check-wire.ts';
import type { MessageCheck, MessageCheckInput } from './message-check.ts';

/** Checks new credentials: on worker threads (VerificationPool), or on the event loop. */
export interface MessageChecker {
  check(input: MessageCheckInput): Promise<MessageCheck> | MessageCheck;
  close(): Promise<void>;
}

/**
 * The worker's module: the TypeScript source when this module runs from source (tests, under
 * tsx, which a worker inherits), else the build's entry beside the CLI (dist/, as npm start and
 * the tests' bundles run).
 */
const WORKER_URL = import.meta.url.endsWith('.ts')
  ? new URL('./verification-worker.ts', import.meta.url)
  : new URL(`file://${path.join(PACKAGE_ROOT, 'dist', 'verification-worker.mjs')}`);
/** Checks waiting beyond which new ones run on the event loop itself: the queue never grows without bound. */
const MAX_QUEUED = 10_000;

interface Waiting {
  resolve(check: MessageCheck): void;
  reject(error: Error): void;
}

/**
 * New credentials checked on worker threads. A check is most of a new sign-in's cost — the
 * secp256k1 recovery alone is about 70 µs with native libsecp256k1, the message's grammar and
 * hashes most of the rest — and on the event loop it holds every other request meanwhile. The
 * checks asked for in one turn of the event loop go to a worker as one batch (one message each way,
 * whatever the batch holds), and the event loop serves other requests until the answers come. With
 * several workers, batches take turns. When too many are queued, or the pool is closed, `inline`
 * checks on the event loop, as a service without workers does.
 */
/** The longest close() waits for the checks workers hold before it terminates them. */
const CLOSE_WAIT_MS = 2000;

export class VerificationPool implements MessageChecker {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, Waiting>();
  private readonly owner = new Map<number, Worker>();
  private batch: { id: number; input: MessageCheckInput }[] = [];
  private nextId = 0;
  private nextWorker = 0;
  private closed = false;
  private onDrained: (() => void) | undefined;

  constructor(
    private readonly size: number,
    private readonly config: AuthConfig,
    private readonly inline: (input: MessageCheckInput) => MessageCheck,
    private readonly onWorkerError: (error: Error) => void,
  ) {}

  check(input: MessageCheckInput): Promise<MessageCheck> | MessageCheck {
    if (this.closed || this.waiting.size >= MAX_QUEUED) return this.inline(input);
    // Started at the first sign-in that needs one: a service that never sees a new message starts none.
    while (this.workers.length < this.size) this.workers.push(this.startWorker());
    const id = this.nextId++;
    if (this.batch.length === 0) setImmediate(() => this.send());
    this.batch.push({ id, input });
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }

  async close(): Promise<void> {
    this.closed = true;
    // A thread terminated in the middle of a native call (keccak, secp256k1) can abort the whole
    // process (an N-API fatal error): the checks the workers hold are answered first, for a while.
    await this.drained(CLOSE_WAIT_MS);
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((worker) => worker.terminate()));
    for (const waiting of this.waiting.values()) waiting.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    this.waiting.clear();
    this.owner.clear();
    this.batch = [];
  }

  private send(): void {
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0) return;
    const worker = this.workers[this.nextWorker++ % this.workers.length];
    if (worker === undefined) {
      for (const job of batch) this.settle(job.id, this.inline(job.input));
      return;
    }
    const wire = encodeJobs(batch);
    if (wire === undefined) {
      for (const job of batch) this.settle(job.id, this.inline(job.input));
      return;
    }
    for (const job of batch) this.owner.set(job.id, worker);
    worker.postMessage(wire);
  }

  private settle(id: number, check: MessageCheck): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    this.owner.delete(id);
    waiting?.resolve(check);
    if (this.owner.size === 0) this.onDrained?.();
  }

  /** Resolves once no worker holds a check, or after `ms`. */
  private drained(ms: number): Promise<void> {
    if (this.owner.size === 0 && this.batch.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.onDrained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(WORKER_URL, { workerData: this.config });
    // A worker never keeps the process alive: closing the service ends it, and so does a stop signal.
    worker.unref();
    worker.on('message', (answers: string) => readAnswers(answers, (id, check) => this.settle(id, check)));
    worker.on('error', (error) => this.onWorkerError(error));
    worker.on('exit', () => {
      if (this.closed) return;
      // Its unanswered checks fail (the client may try again), and a new worker takes its place.
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
}
