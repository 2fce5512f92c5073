import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ROOT } from './checkout.ts';

/**
 * The test files whose heaviest loops `npm test` runs at a CI size: those that size them with
 * test/helpers/test-size.ts. Found by that import, so that a loop sized there is soaked without a
 * list to keep.
 */
export async function sizedTestFiles(): Promise<string[]> {
  const testDir = path.join(ROOT, 'test');
  const files = (await readdir(testDir, { recursive: true, encoding: 'utf8' })).filter((file) => file.endsWith('.test.ts')).sort();
  const sized: string[] = [];
  for (const file of files) {
    if ((await readFile(path.join(testDir, file), 'utf8')).includes("from '../helpers/test-size.ts'")) sized.push(path.join(testDir, file));
  }
  return sized;
}

/**
 * Runs those files at full size (WALLET_ADMIN_TEST_SIZE=full), one at a time as `npm test` does, their
 * output as node:test prints it. True when every test passed.
 */
export async function soakTests(): Promise<boolean> {
  const files = await sizedTestFiles();
  if (files.length === 0) throw new Error('no test file imports test/helpers/test-size.ts');
  process.stdout.write(`Soak: ${files.length} test files at full size: ${files.map((file) => path.relative(ROOT, file)).join(', ')}\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=1', ...files], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, WALLET_ADMIN_TEST_SIZE: 'full' },
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  return code === 0;
}
