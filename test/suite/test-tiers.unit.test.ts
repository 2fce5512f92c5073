import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { ALONE_FILES, TEST_DIR, testFiles, UNIT_SUFFIX, unitTierFiles } from '../helpers/tiers.ts';

/**
 * The unit tier is chosen by name (test/unit-tier.ts): a `*.unit.test.ts` file claims to need
 * nothing but Node. These checks hold it to that claim, statically (what it imports) and at run
 * time (what the helpers refuse in the tier), so that a wrong claim fails here and in
 * `npm run test:unit` rather than on a machine without PostgreSQL.
 */

/**
 * Modules that always need something besides Node or run a crash loop: a unit-tier file may not
 * reach them, directly or through the test helpers it imports. (PostgreSQL and S3 are not here:
 * the suites for every backend import their helpers and reach them only outside the unit tier.)
 */
const NEVER_IN_UNIT_TIER = new Map<string, string>([
  ['helpers/browser.ts', 'Chromium'],
  ['helpers/local-chain.ts', 'a local chain (anvil)'],
  ['helpers/crash-process.ts', 'SIGKILL crash loops'],
  ['playwright-core', 'Chromium'],
  ['ioredis', 'Redis'],
]);
/** What a unit-tier file may import only as a suite for every backend, whose unit tier is SQLite and disk. */
const OTHER_BACKENDS = ['helpers/postgres.ts', 'helpers/s3-server.ts', 'pg', '@aws-sdk/client-s3', 's3rver'];

interface Imports {
  /** Value imports (not `import type`), static or dynamic: package names, or test/-relative paths. */
  values: string[];
  /** The names imported by value from helpers/backends.ts. */
  fromBackends: string[];
}

/** The value imports of a TypeScript source, `file` being its test/-relative path. */
function importsOf(file: string, source: string): Imports {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest);
  const values: string[] = [];
  const fromBackends: string[] = [];
  const resolve = (specifier: string): string =>
    specifier.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)) : specifier;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : [];
      const valueNames = named.filter((element) => !element.isTypeOnly).map((element) => element.name.text);
      const typeOnly =
        clause !== undefined && (clause.isTypeOnly || (clause.name === undefined && named.length > 0 && valueNames.length === 0));
      if (!typeOnly) {
        const target = resolve(node.moduleSpecifier.text);
        values.push(target);
        if (target === 'helpers/backends.ts') fromBackends.push(...valueNames);
      }
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!node.isTypeOnly) values.push(resolve(node.moduleSpecifier.text));
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      values.push(resolve(node.arguments[0].text));
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return { values, fromBackends };
}

const readTestSource = (file: string): string => readFileSync(path.join(TEST_DIR, file), 'utf8');

/**
 * What a unit-tier file gets wrong, in words: empty when nothing. `read` gives the source of a
 * test/-relative file; the helpers it imports are followed (not src/, which never imports them).
 */
function unitTierViolations(file: string, read: (file: string) => string): string[] {
  const violations: string[] = [];
  const direct = importsOf(file, read(file));
  const parameterised = direct.fromBackends.includes('ENGINES') || direct.fromBackends.includes('FILE_SETUPS');
  for (const target of direct.values) {
    if (OTHER_BACKENDS.includes(target) && !parameterised) {
      violations.push(`${file} imports ${target} but is no suite for every backend (it uses neither ENGINES nor FILE_SETUPS)`);
    }
  }
  // Breadth-first over the test/ files it reaches, with the path that led there for the message.
  const seen = new Map<string, string[]>([[file, [file]]]);
  const queue = [file];
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    const trail = seen.get(current)!;
    const { values } = current === file ? direct : importsOf(current, read(current));
    for (const target of values) {
      const needs = NEVER_IN_UNIT_TIER.get(target);
      if (needs !== undefined) violations.push(`${file} needs ${needs}: ${[...trail, target].join(' → ')}`);
      const inTest = target.endsWith('.ts') && !target.startsWith('../');
      if (inTest && !seen.has(target)) {
        seen.set(target, [...trail, target]);
        queue.push(target);
      }
    }
  }
  return violations;
}

describe('test tiers', () => {
  test('every test file is test/<folder>/<name>.test.ts, and npm test runs every one (test/whole-suite.ts)', () => {
    const scripts = JSON.parse(readFileSync(path.join(TEST_DIR, '../package.json'), 'utf8')).scripts as Record<string, string>;
    assert.equal(scripts.test, 'node --import tsx test/whole-suite.ts');
    assert.match(readTestSource('whole-suite.ts'), /const files = testFiles\(\);/);
    const elsewhere = testFiles().filter((file) => !/^[^/]+\/[^/]+\.test\.ts$/.test(file));
    assert.deepEqual(elsewhere, [], 'a test file belongs in the folder of its subject');
  });

  test('a file that stops or restarts the PostgreSQL cluster runs alone (ALONE_FILES), and every file named there exists', () => {
    const files = testFiles();
    // This file names them too, in the pattern below.
    const stopping = files
      .filter((file) => file !== `suite/test-tiers${UNIT_SUFFIX}`)
      .filter((file) => /pg_ctlcluster|whileNoOtherTestUsesPostgres/.test(readTestSource(file)));
    assert.ok(stopping.length > 0, 'the pattern finds the files that restart the cluster');
    assert.deepEqual(
      stopping.filter((file) => !ALONE_FILES.has(file)),
      [],
      'npm test would run these beside other files, which would meet the outage',
    );
    assert.deepEqual(
      [...ALONE_FILES.keys()].filter((file) => !files.includes(file)),
      [],
    );
  });

  test('the unit tier is the *.unit.test.ts files, this one among them', () => {
    const files = unitTierFiles();
    assert.ok(files.includes(`suite/test-tiers${UNIT_SUFFIX}`));
    assert.ok(files.every((file) => file.endsWith(UNIT_SUFFIX)));
    // Every other file runs in the whole suite only; both kinds exist in the folders of subjects.
    assert.ok(testFiles().some((file) => file.startsWith('files/') && !file.endsWith(UNIT_SUFFIX)));
    assert.ok(files.some((file) => file.startsWith('files/')));
  });

  test('no unit-tier file imports a helper or package of Chromium, anvil, Redis or the crash loops', () => {
    const files = unitTierFiles();
    assert.ok(files.length > 50, `${files.length} unit-tier files`);
    assert.deepEqual(
      files.flatMap((file) => unitTierViolations(file, readTestSource)),
      [],
    );
  });

  test('the import check finds what it is for: through a helper, and only value imports', () => {
    const sources: Record<string, string> = {
      'files/a.unit.test.ts': "import { signIn } from '../helpers/console-page.ts';\n",
      'files/b.unit.test.ts':
        "import type { Page } from 'playwright-core';\nimport { type LocalChain } from '../helpers/local-chain.ts';\n",
      'files/c.unit.test.ts': "import { createTestDatabase } from '../helpers/postgres.ts';\n",
      'files/d.unit.test.ts':
        "import { FILE_SETUPS } from '../helpers/backends.ts';\nimport { createTestDatabase } from '../helpers/postgres.ts';\n",
      'files/e.unit.test.ts': "const chain = await import('../helpers/local-chain.ts');\n",
    };
    const read = (file: string) => sources[file] ?? readTestSource(file);
    assert.deepEqual(unitTierViolations('files/a.unit.test.ts', read), [
      'files/a.unit.test.ts needs Chromium: files/a.unit.test.ts → helpers/console-page.ts → helpers/browser.ts',
      'files/a.unit.test.ts needs Chromium: files/a.unit.test.ts → helpers/console-page.ts → helpers/browser.ts → playwright-core',
    ]);
    assert.deepEqual(unitTierViolations('files/b.unit.test.ts', read), []);
    assert.deepEqual(unitTierViolations('files/c.unit.test.ts', read), [
      'files/c.unit.test.ts imports helpers/postgres.ts but is no suite for every backend (it uses neither ENGINES nor FILE_SETUPS)',
    ]);
    assert.deepEqual(unitTierViolations('files/d.unit.test.ts', read), []);
    assert.deepEqual(unitTierViolations('files/e.unit.test.ts', read), [
      'files/e.unit.test.ts needs a local chain (anvil): files/e.unit.test.ts → helpers/local-chain.ts',
    ]);
  });

  test('in the unit tier, every helper that starts or reaches a server refuses, saying why', async () => {
    const helper = (name: string) => JSON.stringify(pathToFileURL(path.join(TEST_DIR, 'helpers', name)).href);
    // Each call is made in a process of the unit tier, which reads the tier when backends.ts loads.
    const script = `
      const calls = {
        createTestDatabase: async () => (await import(${helper('postgres.ts')})).createTestDatabase(),
        startPostgresIfDown: async () => (await import(${helper('postgres.ts')})).startPostgresIfDown(),
        startTestS3: async () => (await import(${helper('s3-server.ts')})).startTestS3(),
        launchChromium: async () => (await import(${helper('browser.ts')})).launchChromium(),
        startLocalChain: async () => (await import(${helper('local-chain.ts')})).startLocalChain(),
        testRedisUrl: async () => (await import(${helper('backends.ts')})).testRedisUrl(),
      };
      const outcome = {};
      for (const [name, call] of Object.entries(calls)) {
        outcome[name] = await call().then(() => 'started', (error) => String(error.message));
      }
      process.stdout.write(JSON.stringify(outcome));
      process.exit(0);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      env: { ...process.env, WALLET_ADMIN_TEST_TIER: 'unit' },
      timeout: 60_000,
    });
    const outcome = JSON.parse(stdout) as Record<string, string>;
    assert.deepEqual(Object.keys(outcome).length, 6);
    for (const [name, message] of Object.entries(outcome)) {
      assert.match(message, /is not in the unit tier \(WALLET_ADMIN_TEST_TIER=unit/, name);
    }
  });
});
