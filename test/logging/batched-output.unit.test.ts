import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BatchedOutput } from '../../src/logging/batched-output.ts';

const CHILD = fileURLToPath(new URL('../helpers/log-writer-child.ts', import.meta.url));

describe('BatchedOutput: the service’s standard output', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-output-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('every line arrives, in order, in writes of about minLength', async () => {
    const file = path.join(dir, 'batches.log');
    const handle = await open(file, 'w');
    const output = new BatchedOutput(handle.fd, 1000, 10_000);
    const lines = Array.from({ length: 500 }, (_, i) => `{"n":${i},"text":"é ${'y'.repeat(i % 50)}"}\n`);
    let flushedBeforeTheEnd = 0;
    for (const line of lines) {
      output.write(line);
      flushedBeforeTheEnd = (await readFile(file, 'utf8')).length;
    }
    assert.ok(flushedBeforeTheEnd > 0, 'full batches were written without waiting for the timer');
    output.flushSync();
    assert.equal(await readFile(file, 'utf8'), lines.join(''));
    assert.equal(output.dropped, 0);
    await handle.close();
  });

  test('a lone line is written within flushMs, without another line to push it', async () => {
    const file = path.join(dir, 'quiet.log');
    const handle = await open(file, 'w');
    const output = new BatchedOutput(handle.fd, 64 * 1024, 30);
    output.write('{"msg":"alone"}\n');
    assert.equal(await readFile(file, 'utf8'), '', 'held for a batch at first');
    const deadline = Date.now() + 5000;
    while ((await readFile(file, 'utf8')) === '' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(await readFile(file, 'utf8'), '{"msg":"alone"}\n');
    await handle.close();
  });

  test('when the reader goes away (npm start | head), output stops, lines are dropped and the process exits on SIGTERM', {
    timeout: 60_000,
  }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read a little, as head does, then close the pipe.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    const report = JSON.parse(stderr.trim().split('\n').at(-1)!) as { written: number; dropped: number };
    assert.ok(report.dropped > 0, `lines were dropped once the reader was gone: ${stderr}`);
  });
});
