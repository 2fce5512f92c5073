import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { builtBin } from '../helpers/bin.ts';
import { spawnService, waitForOutput } from '../helpers/service-process.ts';

/*
 * "Every command in every document runs as printed." Each fenced sh/bash block of README.md and
 * docs/*.md is one of:
 *   - run here, as printed, in the project's folder (a copy of links to its entries, with a
 *     .wallet-admin/ of its own: see projectFolder) against a service started for its document on
 *     a free port with a temp DATA_DIR (the demo data of a first start). The one change: the ports
 *     the documents name (8080, and 8081/8082/4568 of the two-instance example) become free ones,
 *     since this machine is shared and those may be taken. A document's blocks run top to bottom in
 *     one shell, as a reader pastes them into one terminal; a block that starts the service
 *     (`… npm start` alone) runs until it listens, then is stopped; what a block starts in the
 *     background, it stops before the document's blocks end;
 *   - named by a mark `<!-- KEY: test/….test.ts … -->` whose test reads this document and that mark
 *     (the README's walk-through, the client's example), or `<!-- ci: .ci/run … -->` when .ci/run
 *     runs each of its commands;
 *   - marked `<!-- not run here: needs … -->`, for what this machine cannot have.
 * A new block with none of these runs, so it fails here when it does not work as printed.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(path.join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const DOC_PORTS = ['8080', '8081', '8082', '4568'];

interface Block {
  doc: string;
  line: number;
  text: string;
  /** The HTML comment right above the block, if any. */
  mark: string | undefined;
}

function blocksOf(doc: string): Block[] {
  const lines = readFileSync(path.join(REPO, doc), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.indexOf('```', i + 1);
    assert.ok(end > i, `${doc}:${i + 1}: an unclosed block`);
    if (open[1] === 'sh' || open[1] === 'bash') {
      const above = lines[i - 1] ?? '';
      blocks.push({ doc, line: i + 1, text: lines.slice(i + 1, end).join('\n'), mark: /^<!--.*-->$/.test(above) ? above : undefined });
    }
    // A bare ``` opens a block with no language: say which, so that no command hides from this test.
    assert.ok(open[1] !== '', `${doc}:${i + 1}: a block without a language (sh, text, json…)`);
    i = end;
  }
  return blocks;
}

/** The commands of a block: its lines without comments and blank lines. */
function commands(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

type Kind = { run: 'here' } | { run: 'starts-service' } | { run: 'elsewhere'; by: string } | { run: 'not-here'; needs: string };

function kindOf(block: Block): Kind {
  const needs = /^<!-- not run here: needs (.+?) -->$/.exec(block.mark ?? '');
  if (needs) return { run: 'not-here', needs: needs[1]! };
  const named = /^<!-- ([\w-]+): (\S+)/.exec(block.mark ?? '');
  if (named) return { run: 'elsewhere', by: named[2]! };
  const all = commands(block.text);
  if (all.length === 1 && /^(\w+=\S+ )*npm start$/.test(all[0]!)) return { run: 'starts-service' };
  return { run: 'here' };
}

const ALL = DOCS.flatMap(blocksOf);

describe('every sh block of the README and docs/ runs as printed, or says what runs it or what it needs', () => {
  test('each mark names a test that reads this document and this mark, or .ci/run holding each command', () => {
    assert.ok(ALL.length > 10, 'blocks found');
    for (const block of ALL) {
      const kind = kindOf(block);
      const where = `${block.doc}:${block.line}`;
      if (kind.run === 'not-here') assert.match(kind.needs, /\w/, where);
      if (kind.run !== 'elsewhere') continue;
      const runner = readFileSync(path.join(REPO, kind.by), 'utf8');
      if (kind.by === '.ci/run') {
        for (const command of commands(block.text)) assert.ok(runner.includes(command), `${where}: .ci/run does not run ${command}`);
      } else {
        const key = /^<!-- ([\w-]+):/.exec(block.mark!)![1]!;
        assert.match(kind.by, /^test\/.+\.test\.ts$/, where);
        assert.ok(runner.includes(`'<!-- ${key}:'`), `${where}: ${kind.by} does not look for <!-- ${key}:`);
        assert.ok(runner.includes(`'${block.doc}'`), `${where}: ${kind.by} does not read ${block.doc}`);
      }
    }
  });

  test('every relative link and image of the README and docs/ names a file that exists, and an anchor it has', () => {
    const anchors = (doc: string) =>
      new Set(
        readFileSync(path.join(REPO, doc), 'utf8')
          .split('\n')
          .filter((line) => /^#{1,6} /.test(line))
          .map((line) =>
            line
              .replace(/^#+ /, '')
              .toLowerCase()
              .replace(/[^\p{L}\p{N} _-]/gu, '')
              .replaceAll(' ', '-'),
          ),
      );
    for (const doc of DOCS) {
      const text = readFileSync(path.join(REPO, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#');
        const resolved = file ? path.normalize(path.join(path.dirname(doc), file)) : doc;
        assert.ok(existsSync(path.join(REPO, resolved)), `${doc}: ${target} (no ${resolved})`);
        if (anchor && resolved.endsWith('.md')) assert.ok(anchors(resolved).has(anchor), `${doc}: ${target} (no such heading)`);
      }
    }
  });

  test('no line of prose is printed twice in one document (a paragraph pasted again)', () => {
    for (const doc of DOCS) {
      const seen = new Set<string>();
      const prose = readFileSync(path.join(REPO, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
      // Short lines (a heading, a table's separator, "Over HTTP:") may well repeat; a sentence's worth may not.
      for (const line of prose.split('\n').map((l) => l.trim())) {
        if (line.length < 40) continue;
        assert.ok(!seen.has(line), `${doc} holds this line twice: ${line}`);
        seen.add(line);
      }
    }
  });

  // Three documents at a time (each waits on processes starting as much as it computes; more would
  // only share the 2 cores of a CI machine thinner), each in a project folder of its own, so that what
  // one writes in .wallet-admin/ (signed headers for its port…) is not another's.
  describe('the blocks run here', { concurrency: 3 }, () => {
    const dataRoot = { dir: '' };
    before(async () => {
      // Checked before any block runs `npm start`, whose build, were dist/ out of date, would empty it
      // under the services of the other documents.
      builtBin();
      dataRoot.dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-doc-commands-'));
    });
    after(() => rm(dataRoot.dir, { recursive: true, force: true }));

    for (const doc of DOCS) {
      const blocks = blocksOf(doc).filter((b) => kindOf(b).run === 'here' || kindOf(b).run === 'starts-service');
      if (blocks.length === 0) continue;
      test(`${doc}: ${blocks.length} block(s), top to bottom`, async (t) => {
        const ports = new Map<string, string>();
        for (const port of DOC_PORTS) ports.set(port, String(await fixedRangePort(new Set(ports.values()))));
        const swap = (text: string) => text.replace(/\b(8080|8081|8082|4568)\b/g, (port) => ports.get(port)!);
        const dataDir = path.join(dataRoot.dir, doc.replaceAll('/', '-'), 'data');
        const project = await projectFolder(path.join(dataRoot.dir, doc.replaceAll('/', '-'), 'project'));
        const env = { PATH: process.env.PATH!, HOME: process.env.HOME ?? dataRoot.dir, DATA_DIR: dataDir, PORT: ports.get('8080')! };

        for (const block of blocks.filter((b) => kindOf(b).run === 'starts-service')) {
          // Its own DATA_DIR: the blocks below get a service of their own with the demo data.
          const started = await runUntil(swap(block.text), { ...env, DATA_DIR: `${dataDir}-started` }, project, /listening on/);
          assert.ok(started.matched, `${block.doc}:${block.line} did not start:\n${started.output}`);
        }

        const service = spawnService({ ...env });
        t.after(() => service.stop());
        await waitForOutput(service, /listening on/, 60_000);

        const runnable = blocks.filter((b) => kindOf(b).run === 'here');
        const script = runnable.map((b, i) => `echo '@@block ${i}@@'\n${swap(b.text)}\n`).join('');
        const { code, stdout, stderr, leftRunning } = await runBash(script, env, project);
        const reached = [...stdout.matchAll(/^@@block (\d+)@@$/gm)].length - 1;
        const failed = runnable[Math.max(reached, 0)]!;
        assert.equal(code, 0, `${failed.doc}:${failed.line} failed (exit ${code}):\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`);
        // What a block starts in the background, it stops: a reader's terminal keeps nothing running (or a port taken).
        assert.equal(leftRunning, '', `${doc}: its blocks ended leaving running:\n${leftRunning}`);

        // curl -sS answers 0 for a 4xx or 5xx too: a problem in the output must be one the block
        // itself names (a comment with its code), else the command did not do what it shows.
        const outputs = stdout.split(/^@@block \d+@@$/m).slice(1);
        for (const [i, output] of outputs.entries()) {
          for (const [, problemCode] of output.matchAll(/"type":"about:blank".*?"code":"(\w+)"/g)) {
            assert.ok(
              runnable[i]!.text.includes(problemCode!),
              `${runnable[i]!.doc}:${runnable[i]!.line} answered ${problemCode}:\n${output}`,
            );
          }
        }
        service.child.kill('SIGTERM');
        assert.equal(await service.exited, 0);
      });
    }
  });
});

interface BashResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What the script started and left running when it ended (`ps` lines), stopped since: '' when nothing. */
  leftRunning: string;
}

/**
 * The project's folder as a reader has it, but with a .wallet-admin/ of its own: every other entry
 * of the project links to the project's (node_modules, bin, dist, docs, packages…), so `npm exec`,
 * `npm run` and ./bin/… find the project, and what the blocks write elsewhere lands in the project.
 */
async function projectFolder(folder: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  for (const entry of readdirSync(REPO)) {
    if (entry !== '.wallet-admin') await symlink(path.join(REPO, entry), path.join(folder, entry));
  }
  return folder;
}

/**
 * bash -euo pipefail in `cwd` with stdin closed, in its own process group. Its end is bash's exit,
 * not the end of its output: a process a block started in the background and did not stop holds
 * the output open (an `npm exec` killed leaves what it ran), and would hold this test until the
 * timeout. Such a process is named in `leftRunning`, then the group is killed.
 */
function runBash(script: string, env: Record<string, string>, cwd: string): Promise<BashResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const group = child.pid!;
    let stdout = '';
    let stderr = '';
    const closed = new Promise((resolveClosed) => child.on('close', resolveClosed));
    const timer = setTimeout(() => killGroup(group), 120_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', async (code) => {
      clearTimeout(timer);
      const leftRunning = await stillRunning(group);
      killGroup(group);
      await closed;
      resolve({ code, stdout, stderr, leftRunning });
    });
  });
}

/** The processes of a group still running, as `ps` lines, once those on their way out (up to a second) are gone: '' when none. */
async function stillRunning(group: number): Promise<string> {
  for (let waited = 0; waited < 1000; waited += 50) {
    try {
      process.kill(-group, 0);
    } catch {
      return '';
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // An exited process nobody reaped (a zombie: here PID 1 may not reap orphans) runs nothing.
  const ps = spawnSync('ps', ['-eo', 'pgid=,pid=,stat=,args='], { encoding: 'utf8' }).stdout;
  return ps
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pgid, , stat]) => pgid === String(group) && !stat!.startsWith('Z'))
    .map((fields) => fields.join(' '))
    .join('\n');
}

function killGroup(group: number): void {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // the group is gone already
  }
}

/** Runs a block that does not end by itself (a service) until its output matches, then stops its process group. */
function runUntil(
  script: string,
  env: Record<string, string>,
  cwd: string,
  pattern: RegExp,
): Promise<{ matched: boolean; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    let matched = false;
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // exited already
      }
    };
    const timer = setTimeout(stop, 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!matched && pattern.test(output)) {
        matched = true;
        stop();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ matched, output });
    });
  });
}

/**
 * A free port below the ephemeral range (32768 and up on Linux): a port the system handed out for
 * listening is one it may give the next outgoing connection too (a client of PostgreSQL, of s3rver)
 * before a block's service binds it, seconds later.
 */
async function fixedRangePort(taken: Set<string>): Promise<number> {
  const { createServer } = await import('node:net');
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(String(port))) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
