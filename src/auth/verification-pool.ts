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
 * secp256k1 recovery alone is about 50 µs with native libsecp256k1, the message's grammar and
 * hashes most of the rest — and on the event loop it holds every other request meanwhile. A worker
 * has one batch at a time: the checks asked for while it works wait here and go to it as one batch
 * when it answers (one message each way, whatever the batch holds), or to an idle worker at the end
 * of the event loop's turn. A batch sent to a busy worker would wait in its queue all the same, and
 * each message costs both threads a copy and a wake-up (bench: auth-cold, profile). When too many
 * are queued, or the pool is closed, `inline` checks on the event loop, as a service without
 * workers does.
 */
/** The longest close() waits for the checks workers hold before it terminates them. */
const CLOSE_WAIT_MS = 2000;

export class VerificationPool implements MessageChecker {
  private readonly workers: Worker[] = [];
  /** Workers holding a batch now; the others are idle. */
  private readonly busy = new Set<Worker>();
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

  /** The waiting checks to an idle worker, as one batch; with none idle, they wait for the first to answer. */
  private send(): void {
    if (this.batch.length === 0) return;
    const worker = this.idleWorker();
    if (worker === undefined) {
      // No worker at all (the pool has closed and let them go): checked here.
      if (this.workers.length === 0) for (const job of this.takeBatch()) this.settle(job.id, this.inline(job.input));
      return;
    }
    const batch = this.takeBatch();
    const wire = encodeJobs(batch);
    if (wire === undefined) {
      for (const job of batch) this.settle(job.id, this.inline(job.input));
      return;
    }
    for (const job of batch) this.owner.set(job.id, worker);
    this.busy.add(worker);
    worker.postMessage(wire);
  }

  private takeBatch(): { id: number; input: MessageCheckInput }[] {
    const batch = this.batch;
    this.batch = [];
    return batch;
  }

  /** The next idle worker, the workers taking turns; undefined when all are busy. */
  private idleWorker(): Worker | undefined {
    for (let tried = 0; tried < this.workers.length; tried++) {
      const worker = this.workers[this.nextWorker++ % this.workers.length]!;
      if (!this.busy.has(worker)) return worker;
    }
    return undefined;
  }

  private settle(id: number, check: MessageCheck): void {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    this.owner.delete(id);
    waiting?.resolve(check);
    // Checks waiting for a busy worker are not drained yet: they are sent when it answers.
    if (this.owner.size === 0 && this.batch.length === 0) this.onDrained?.();
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
    worker.on('message', (answers: string) => {
      this.busy.delete(worker);
      readAnswers(answers, (id, check) => this.settle(id, check));
      // What was asked for meanwhile goes at once: this worker is idle again.
      this.send();
    });
    worker.on('error', (error) => this.onWorkerError(error));
    worker.on('exit', () => {
      this.busy.delete(worker);
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
      this.send();
    });
    return worker;
  }
}
