import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MINIMUM_NODE_MAJOR, TESTED_NODE_MAJORS, unsupportedNodeMessage } from '../../bin/supported-node.js';
import { runAsUser } from '../helpers/user-shell.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(REPO, file), 'utf8');

describe('the supported Node.js versions', () => {
  test('bin/supported-node.js, package.json engines, .ci/run and README name the same versions', () => {
    assert.equal(JSON.parse(read('package.json')).engines.node, `>=${MINIMUM_NODE_MAJOR}`);
    const ci = read('.ci/run');
    const primary = Number(/^PRIMARY_NODE=(\d+)$/m.exec(ci)?.[1]);
    const others = /^OTHER_NODES=\(([\d ]+)\)$/m.exec(ci)?.[1]?.split(' ').map(Number) ?? [];
    assert.deepEqual([primary, ...others].sort(), TESTED_NODE_MAJORS);
    assert.ok(Math.min(...TESTED_NODE_MAJORS) === MINIMUM_NODE_MAJOR, 'CI tests the oldest version it lets run');
    const [last, ...rest] = [...TESTED_NODE_MAJORS].reverse();
    assert.ok(read('README.md').includes(`Supported Node.js versions: ${rest.reverse().join(', ')} and ${last}.`));
  });

  test('an older Node.js is told which versions run wallet-admin and how to get one; the supported ones are not', () => {
    for (const version of ['20.20.2', '21.7.3', '18.0.0']) {
      const message = unsupportedNodeMessage(version, '/usr/bin/node');
      assert.ok(message, version);
      assert.ok(message.includes(`this is Node.js ${version} (/usr/bin/node)`), message);
      assert.match(message, /needs Node\.js 22 or later \(tested on 22, 24 and 26\)/);
      assert.match(message, /Nothing was started and nothing was written/);
      assert.match(message, /https:\/\/nodejs\.org\/en\/download/);
      assert.match(message, /nvm install 24/);
      assert.match(message, /run `npm ci` in this folder again/);
    }
    for (const version of ['22.0.0', '22.23.3', '24.21.0', '26.12.1', '27.0.0', process.versions.node]) {
      assert.equal(unsupportedNodeMessage(version, process.execPath), undefined, version);
    }
  });

  // CI runs this on each tested version (the unit tier on 22 and 26, the whole suite on 24), so that a
  // dependency whose engines exclude one of them fails here rather than on a user's npm ci.
  test(`npm ci accepts this Node.js (${process.versions.node}) under the project's engine-strict, and refuses one the engines exclude`, async (t) => {
    const nodeBin = path.dirname(process.execPath);
    assert.ok(existsSync(path.join(nodeBin, 'npm')), `npm beside ${process.execPath}, as Node.js installs it`);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-engines-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    for (const file of ['package.json', 'package-lock.json', '.npmrc']) await cp(path.join(REPO, file), path.join(dir, file));
    // The lockfile holds every package's engines: npm checks them without the network, writing nothing.
    const dryRun = `npm ci --dry-run --offline --ignore-scripts --no-audit --no-fund --cache ${dir}/cache`;
    const accepted = await runAsUser(dryRun, { cwd: dir, nodeBin, home: dir });
    assert.equal(accepted.code, 0, accepted.output);
    assert.doesNotMatch(accepted.output, /EBADENGINE/);

    // The same project wanting a newer Node.js than this one: .npmrc's engine-strict makes it an error.
    const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
    manifest.engines.node = `>=${Number(process.versions.node.split('.')[0]) + 1}`;
    await writeFile(path.join(dir, 'package.json'), JSON.stringify(manifest));
    const refused = await runAsUser(dryRun, { cwd: dir, nodeBin, home: dir });
    assert.notEqual(refused.code, 0, refused.output);
    assert.match(refused.output, /npm error code EBADENGINE/);
    assert.ok(!existsSync(path.join(dir, 'node_modules')));
  });
});
