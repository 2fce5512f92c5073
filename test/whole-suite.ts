/**
 * `npm test`: every test file on every backend (test/unit-tier.ts says what the unit tier leaves
 * out). The files run two at a time on this 2-core machine (as many as it has cores): each has its
 * own data directory, database and ports, so they share nothing but the servers. The files that stop a
 * shared server (ALONE_FILES) run after the others, one at a time. The end of the output lists the
 * slowest files with their seconds: README's budget for the suite is kept by reading it.
 */
import { availableParallelism } from 'node:os';
import { runSuite } from './helpers/suite-runner.ts';
import { ALONE_FILES, testFiles } from './helpers/tiers.ts';

const files = testFiles();
await runSuite([
  {
    label: 'side by side',
    files: files.filter((file) => !ALONE_FILES.has(file)),
    concurrency: availableParallelism(),
    isolation: 'process',
  },
  { label: 'alone', files: files.filter((file) => ALONE_FILES.has(file)), concurrency: 1, isolation: 'process' },
]);
