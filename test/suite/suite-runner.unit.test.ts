import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { runGroup } from '../helpers/suite-runner.ts';

/**
 * The runner the suites run on (test/helpers/suite-runner.ts): every test of a file is counted,
 * a failing test fails the run, and a file whose process ends before it reports fails it too,
 * however it ended (Node's process isolation with forceExit once dropped a file's verdicts and
 * still passed: nodejs/node#64833).
 */
const PASSING = 'suite/fixtures/three-passing.fixture.ts';
const FAILING = 'suite/fixtures/one-failing.fixture.ts';
const EXITING = 'suite/fixtures/exits-mid-test.fixture.ts';

async function run(files: string[], isolation: 'process' | 'shards') {
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const outcome = await runGroup({ label: 'test', files, concurrency: 2, isolation }, new Map(), output);
  return { ...outcome, text };
}

test('one process per file: every test counted, each file timed; a process that ends before reporting fails the run', async () => {
  const outcome = await run([PASSING, EXITING], 'process');
  assert.equal(outcome.failed, true);
  assert.deepEqual([...outcome.seconds.keys()].sort(), [EXITING, PASSING]);
  assert.equal(outcome.counts.passed, 3, 'the passing file counted whole');
  assert.match(outcome.text, /a shard ended \(exit 0\) before reporting: suite\/fixtures\/exits-mid-test\.fixture\.ts/);
  assert.match(outcome.text, /passes 3/, "the passing file's report is printed");
});

test('files sharing a process: a failing test fails the run, and the counts add up', async () => {
  const outcome = await run([PASSING, FAILING], 'shards');
  assert.equal(outcome.failed, true);
  assert.deepEqual(
    { tests: outcome.counts.tests, passed: outcome.counts.passed, failed: outcome.counts.failed },
    { tests: 5, passed: 4, failed: 1 },
  );
  const passing = await run([PASSING], 'process');
  assert.equal(passing.failed, false);
  assert.equal(passing.counts.tests, 3);
});
