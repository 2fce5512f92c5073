import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { request } from '../helpers/http.ts';
import { startTestService } from '../helpers/test-service.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** @redocly/cli's own entry point, run by this Node: its bin is a shell shim only on some systems. */
const REDOCLY = path.join(path.dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

type LintReport = {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
};

/** `redocly lint` of a document with the repository's redocly.yaml; its JSON report. */
async function lint(file: string): Promise<LintReport> {
  const args = [REDOCLY, 'lint', '--config', path.join(REPO_ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000', file];
  // It exits 1 when it finds errors; the report on stdout says which.
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as LintReport;
}

const summary = (report: LintReport) =>
  report.problems.map((problem) => `${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer})`).join('\n');

test('the OpenAPI document is clean under redocly lint (redocly.yaml: the recommended rules as errors, and more)', async (t) => {
  const svc = await startTestService('sqlite');
  t.after(() => svc.close());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-openapi-lint-'));
  t.after(() => rm(dir, { recursive: true, force: true }));

  const document = path.join(dir, 'openapi.json');
  await writeFile(document, (await request(svc.baseUrl, '/api/openapi.json')).body);
  const report = await lint(document);
  assert.deepEqual(report.totals, { errors: 0, warnings: 0, ignored: 0 }, summary(report));

  // The rules are live: a document without operationIds, tags or examples that fit fails them.
  const broken = JSON.parse((await request(svc.baseUrl, '/api/openapi.json')).body);
  const nonce = broken.paths['/api/auth/nonce'].get;
  delete nonce.operationId;
  nonce.tags = ['nonces'];
  nonce.responses['200'].content['application/json'].example = { nonce: 'x', expiresAt: 'soon' };
  await writeFile(document, JSON.stringify(broken));
  const rules = new Set((await lint(document)).problems.map((problem) => problem.ruleId));
  for (const rule of ['operation-operationId', 'operation-tag-defined', 'no-invalid-media-type-examples']) {
    assert.ok(rules.has(rule), `${rule} reports: ${[...rules].join(', ')}`);
  }
});
