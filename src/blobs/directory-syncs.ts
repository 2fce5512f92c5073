/**
 * Group commit for directory fsyncs: concurrent writers that each renamed a file into the same
 * directory share one fsync of it instead of queueing one each (on libuv's pool of 4 threads, 32
 * writers' fsyncs wait for each other's). What a caller gets is exactly what its own fsync gave
 * it: its promise settles only after an fsync of the directory that *began after the call*, so
 * every change the caller made to the directory before calling is covered. A call that arrives
 * while an fsync is in flight does not join it (that fsync may have started before the caller's
 * rename); it waits for the next one, which starts as soon as the one in flight ends and covers
 * every call made meanwhile. An fsync that fails fails every call of its round, with its error.
 */
export class DirectorySyncs {
  /** The directories with an fsync in flight, each with the calls waiting for the next one. */
  readonly #inFlight = new Map<string, { next?: Round }>();

  constructor(private readonly fsync: (directory: string) => Promise<void>) {}

  /** Settles once an fsync of `directory` that began after this call has ended (`directory`: one spelling per directory). */
  sync(directory: string): Promise<void> {
    const inFlight = this.#inFlight.get(directory);
    if (inFlight === undefined) {
      const round = newRound();
      this.#start(directory, round);
      return round.promise;
    }
    inFlight.next ??= newRound();
    return inFlight.next.promise;
  }

  #start(directory: string, round: Round): void {
    const state: { next?: Round } = {};
    this.#inFlight.set(directory, state);
    // The fsync starts here, synchronously: after every call of its round was made (and a throw
    // of `fsync` itself fails the round like a rejection).
    new Promise<void>((resolve) => resolve(this.fsync(directory))).then(round.resolve, round.reject).finally(() => {
      if (state.next) this.#start(directory, state.next);
      else this.#inFlight.delete(directory);
    });
  }
}

interface Round {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function newRound(): Round {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((settle, fail) => {
    resolve = settle;
    reject = fail;
  });
  return { promise, resolve, reject };
}
