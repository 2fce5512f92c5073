import { BatchedOutput } from '../../src/logging/batched-output.ts';

/**
 * Writes numbered log lines to standard output through BatchedOutput until told to stop (SIGTERM)
 * or until it has written `LINES`, then reports on standard error how many were dropped: the test
 * of what happens when the reader of the output goes away.
 */
const output = new BatchedOutput(1, Number(process.env.MIN_LENGTH ?? 4096), 20);
const lines = Number(process.env.LINES ?? 1e9);
let n = 0;
let stopping = false;
process.once('SIGTERM', () => {
  stopping = true;
});
while (!stopping && n < lines) {
  for (let i = 0; i < 100 && n < lines; i++) output.write(`{"line":${n++},"pad":"${'x'.repeat(80)}"}\n`);
  await new Promise((resolve) => setImmediate(resolve));
}
output.flushSync();
process.stderr.write(`${JSON.stringify({ written: n, dropped: output.dropped })}\n`);
