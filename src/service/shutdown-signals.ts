import type { Logger } from '../logging/logger.ts';

/**
 * Time given to closing the stores and workers once the connections are cut: past it the process
 * exits anyway, since an operator's SIGTERM must end the process whatever holds it.
 */
const CLOSE_GRACE_MS = 5_000;

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

type ShutdownLogger = Logger & { info(details: object, message: string): void };

/**
 * Resolves once the first SIGTERM or SIGINT has run `close(deadlineMs)`. A second signal exits at
 * once (exit code 1), as an operator pressing Ctrl-C again expects; so does a close that still runs
 * CLOSE_GRACE_MS past the deadline.
 */
export function closeOnSignal(close: (deadlineMs: number) => Promise<void>, deadlineMs: number, logger: ShutdownLogger): Promise<void> {
  return new Promise<void>((resolve) => {
    let closing = false;
    const onSignal = (signal: string) => {
      if (closing) {
        logger.warn({ signal }, 'second signal while shutting down: exiting at once');
        process.exit(1);
      }
      closing = true;
      logger.info({ signal, deadlineMs }, 'shutting down');
      // Unreferenced: it fires only while something else keeps the process alive.
      setTimeout(() => {
        logger.error({ signal }, 'shutdown did not finish in time: exiting');
        process.exit(1);
      }, deadlineMs + CLOSE_GRACE_MS).unref();
      close(deadlineMs).then(resolve, (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        resolve();
      });
    };
    for (const signal of SIGNALS) process.on(signal, onSignal);
  });
}
