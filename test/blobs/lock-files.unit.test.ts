import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockFiles } from '../../src/locks/lock-files.ts';

const MODULE = new URL('../../src/locks/lock-files.ts', import.meta.url).href;
const lockFileOf = (directory: string, key: string) => path.join(directory, createHash('sha256').update(key).digest('hex').slice(0, 40));

/** Another process that takes the lock on `key`, notes it, holds it until told to go, notes that, and releases. */
function holder(directory: string, key: string, log: string, go: string) {
  const script = `
    import { appendFile, access } from 'node:fs/promises';
    const { LockFiles } = await import(${JSON.stringify(MODULE)});
    await new LockFiles(${JSON.stringify(directory)}).runExclusive(${JSON.stringify(key)}, async () => {
      await appendFile(${JSON.stringify(log)}, 'other:start\\n');
      for (;;) { try { await access(${JSON.stringify(go)}); break; } catch { await new Promise((r) => setTimeout(r, 10)); } }
      await appendFile(${JSON.stringify(log)}, 'other:end\\n');
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: 'inherit' });
  return new Promise<number | null>((resolve) => child.on('close', resolve));
}

describe('LockFiles: per-file locks across processes on one DATA_DIR', () => {
  test('a second process waits until the first releases the same key; other keys do not wait', async (t) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locks-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const log = path.join(dir, 'log');
    const go = path.join(dir, 'go');
    const locks = new LockFiles(path.join(dir, 'locks'));
    const other = holder(path.join(dir, 'locks'), 'files/c/f', log, go);
    while (!(await readFile(log, 'utf8').catch(() => '')).includes('other:start')) await sleep(10);

    await locks.runExclusive('files/c/another', () => appendFile(log, 'me:another\n'));
    const mine = locks.runExclusive('files/c/f', () => appendFile(log, 'me:same\n'));
    await sleep(200); // give a broken lock every chance to let us in early
    await writeFile(go, '');
    await mine;
    assert.equal(await other, 0);
    assert.deepEqual((await readFile(log, 'utf8')).trim().split('\n'), ['other:start', 'me:another', 'other:end', 'me:same']);
    assert.deepEqual(await readdir(path.join(dir, 'locks')), [], 'released locks leave no file');
  });

  test('a lock left by a killed process (its pid gone, or our own pid reused, or never written) is taken over', async (t) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locks-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const locks = new LockFiles(dir);
    const exited = spawn(process.execPath, ['-e', '']);
    const deadPid = await new Promise<number>((resolve) => exited.on('close', () => resolve(exited.pid!)));

    await writeFile(lockFileOf(dir, 'dead'), String(deadPid));
    await writeFile(lockFileOf(dir, 'mine'), String(process.pid));
    await writeFile(lockFileOf(dir, 'unwritten'), '');
    await utimes(lockFileOf(dir, 'unwritten'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    for (const key of ['dead', 'mine', 'unwritten']) {
      assert.equal(await locks.runExclusive(key, async () => `ran ${key}`), `ran ${key}`);
    }
    assert.deepEqual(await readdir(dir), []);
  });

  test('in one process the same key runs one at a time, in order', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'locks-'));
    const locks = new LockFiles(dir);
    const order: number[] = [];
    let inside = 0;
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        locks.runExclusive('k', async () => {
          inside++;
          assert.equal(inside, 1);
          await sleep(1);
          order.push(i);
          inside--;
        }),
      ),
    );
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await rm(dir, { recursive: true, force: true });
  });
});
