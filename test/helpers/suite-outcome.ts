/**
 * What a node:test run in one process (a shard, shard.ts) came to, read from its event stream:
 * whether anything failed, the counts of its summary, and each file's seconds, the sum of its
 * top-level tests and suites. A file that has a process of its own is timed by the runner instead,
 * from its process's start to its exit (suite-runner.ts).
 */
import type { TestsStream } from 'node:test';

export type Counts = Record<'tests' | 'passed' | 'failed' | 'cancelled' | 'skipped' | 'todo', number>;
export const NO_COUNTS: Counts = { tests: 0, passed: 0, failed: 0, cancelled: 0, skipped: 0, todo: 0 };

export interface Outcome {
  failed: boolean;
  /** test/-relative path → seconds. */
  seconds: Map<string, number>;
  counts: Counts;
}

export function addCounts(a: Counts, b: Counts): Counts {
  return Object.fromEntries(Object.entries(a).map(([key, value]) => [key, value + b[key as keyof Counts]])) as Counts;
}

/** Resolves when the stream ends. `testDir` is test/ with its trailing separator. */
export function collectOutcome(stream: TestsStream, testDir: string): Promise<Outcome> {
  const seconds = new Map<string, number>();
  let failed = false;
  let counts = NO_COUNTS;
  stream.on('test:complete', (event) => {
    const { file, nesting, details } = event;
    if (file === undefined || !file.startsWith(testDir)) return;
    const relative = file.slice(testDir.length);
    if (nesting === 0) seconds.set(relative, (seconds.get(relative) ?? 0) + details.duration_ms / 1000);
    if (!details.passed) failed = true;
  });
  stream.on('test:fail', () => {
    failed = true;
  });
  stream.on('test:summary', (event) => {
    // The run's own summary is the one that names no file.
    if (event.file === undefined) {
      // The type leaves out `failed`, which the event carries.
      const { tests, passed, cancelled, skipped, todo } = event.counts;
      counts = {
        tests,
        passed,
        failed: (event.counts as Partial<Counts>).failed ?? tests - passed - cancelled - skipped - todo,
        cancelled,
        skipped,
        todo,
      };
      if (!event.success) failed = true;
    }
  });
  return new Promise((resolve, reject) => {
    stream.on('error', reject);
    stream.on('end', () => resolve({ failed, seconds, counts }));
  });
}
