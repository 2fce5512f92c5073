/**
 * One shard of an in-process group (suite-runner.ts): runs the files named on its command line in
 * this one process (node:test's isolation 'none'), so that the service's modules are loaded and
 * compiled once for all of them rather than once per file. Its spec report goes to standard output;
 * what the runner counts (each file's seconds, the totals) goes as one JSON line to file descriptor 3.
 */
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { collectOutcome } from './suite-outcome.ts';
import { TEST_DIR } from './tiers.ts';

const files = process.argv.slice(2);
const stream = run({
  files: files.map((file) => TEST_DIR + file),
  isolation: 'none',
  // A test or hook that hangs fails after ten minutes.
  timeout: 600_000,
});
const outcome = collectOutcome(stream, TEST_DIR);
const report = stream.compose(spec);
report.pipe(process.stdout, { end: false });
const result = await outcome;
await finished(report);
await new Promise((resolve) => process.stdout.write('', resolve));
const channel = createWriteStream('', { fd: 3 });
await new Promise<void>((resolve) => channel.end(`${JSON.stringify({ ...result, seconds: [...result.seconds] })}\n`, resolve));
// Ended here once its tests are done, as --test-force-exit would: a socket or timer a test left
// open must not hold the shard (it once held a file's process for the whole CI hour).
process.exit(result.failed ? 1 : 0);
