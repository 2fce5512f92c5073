import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, cp, mkdtemp, readdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { parseIdentityFile } from '../../src/age/age-keys.ts';
import { filePath } from '../../src/files/file-path.ts';
import { readCopy } from '../../src/offsite/copy-reader.ts';
import { DirectoryTarget } from '../../src/offsite/target/directory-target.ts';
import { type CliResult, runCli } from '../helpers/cli.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { ageKeys, type OffsiteKeys, offsiteDir } from '../helpers/offsite.ts';
import { createStorage, type Storage, startTestService, storageEnv, type TestService } from '../helpers/test-service.ts';

/**
 * An off-site copy someone tampered with (docs/offsite.md, "Verifying"): a copy of two generations
 * shipped by a service on SQLite is copied per case and damaged as an attacker with write access to
 * the target could: a byte of a blob flipped, a segment deleted, two swapped, one brought from
 * another target, the newest deleted. `offsite verify` names the first thing that is wrong, where it
 * is; `offsite restore` refuses and writes nothing; only the published head shows a truncation.
 */

/** What the copy must never show in plaintext: every file's content and every folder and file name. */
const CONTENTS = ['ledger of quiet herons', 'first draft of the pact', 'final pact, signed', 'minutes of the moss council'];
const NAMES = ['heron-folder', 'ledger-heron.txt', 'pact-folder', 'pact-heron.txt', 'minutes-heron.txt'];

function segmentFile(dir: string, generation: string, segment: number): string {
  return path.join(dir, 'generations', generation, `${String(segment).padStart(12, '0')}.age`);
}

async function generationsOf(dir: string): Promise<{ name: string; segments: number }[]> {
  const names = await readdir(path.join(dir, 'generations'));
  return Promise.all(names.map(async (name) => ({ name, segments: (await readdir(path.join(dir, 'generations', name))).length })));
}

function assertBroken(result: CliResult, pattern: RegExp): void {
  assert.notEqual(result.code, 0, `it exits non-zero: ${result.stdout}`);
  assert.match(result.stderr + result.stdout, /OFFSITE_COPY_BROKEN/);
  assert.match(result.stderr + result.stdout, pattern);
}

describe('an off-site copy tampered with', () => {
  let keys: OffsiteKeys;
  let copy: Awaited<ReturnType<typeof offsiteDir>>;
  let other: Awaited<ReturnType<typeof offsiteDir>>;
  let storage: Storage;
  let otherStorage: Storage;
  let scratch: string;
  let headFile: string;
  /** The copy's generations, oldest first, and how many segments each holds. */
  let generations: { name: string; segments: number }[];
  /** The blob of the signed pact: its key and its object at the target. */
  let pact: { key: string; object: string };
  /** The tenant's name, which the copy must not show either. */
  let tenantName: string;

  /** A fresh copy of the untampered target, to damage. */
  async function copyOfTarget(): Promise<{ dir: string; url: string }> {
    const dir = await mkdtemp(path.join(scratch, 'copy-'));
    await cp(copy.dir, dir, { recursive: true });
    return { dir, url: `file://${dir}` };
  }

  const verify = (url: string, ...more: string[]) =>
    runCli(['offsite', 'verify', '--from', url, '--identity', keys.identityFile, '--json', ...more], {});

  async function put(
    svc: TestService,
    fixture: Awaited<ReturnType<typeof createTenantFixture>>,
    folder: string,
    name: string,
    text: string,
  ) {
    await svc.service.files.files.put(
      fixture.channel,
      { adminId: fixture.owner.id },
      filePath(folder, name),
      Readable.from([Buffer.from(text)]),
      'text/plain',
    );
  }

  before(async () => {
    keys = await ageKeys();
    copy = await offsiteDir();
    other = await offsiteDir();
    scratch = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-tamper-'));
    storage = await createStorage('sqlite');
    otherStorage = await createStorage('sqlite');
    // Shipped only when the test drains (and once at start): a timer's round beside a drain would be a
    // second round of the same instance, which can ship a second snapshot (an orphan generation).
    const env = { OFFSITE_URL: copy.url, OFFSITE_RECIPIENTS: keys.recipient, OFFSITE_SHIP_INTERVAL: '3600000' };

    // A second service ships to a second target, with the same recipient: its segments decrypt with our
    // identity. It runs beside the first, which writes files (some replaced) and ships after each
    // write: at least 4 segments, then a second generation with changes after its snapshot.
    const shipElsewhere = async () => {
      const otherSvc = await startTestService('sqlite', { storage: otherStorage, env: { ...env, OFFSITE_URL: other.url } });
      try {
        const fixture = await createTenantFixture(otherSvc.service.store, 'Other');
        await otherSvc.service.offsite.shipper!.drain();
        await put(otherSvc, fixture, 'elsewhere', 'note.txt', 'not of this copy');
        await otherSvc.service.offsite.shipper!.drain();
      } finally {
        await otherSvc.close();
      }
    };
    const shipHere = async () => {
      const svc = await startTestService('sqlite', { storage, env });
      try {
        const store = svc.service.store;
        const ship = () => svc.service.offsite.shipper!.drain();
        const home = await createTenantFixture(store, 'Home');
        tenantName = home.tenant.name;
        await ship();
        await put(svc, home, 'heron-folder', 'ledger-heron.txt', CONTENTS[0]!);
        await ship();
        await put(svc, home, 'pact-folder', 'pact-heron.txt', CONTENTS[1]!);
        await ship();
        await put(svc, home, 'pact-folder', 'pact-heron.txt', CONTENTS[2]!);
        await ship();
        // A second generation: a new snapshot, then changes after it (often in the same second as the
        // first: their names, stamped to the second, need not sort in the order they were made).
        await store.offsite.requireSnapshot();
        await ship();
        await put(svc, home, 'heron-folder', 'minutes-heron.txt', CONTENTS[3]!);
        await ship();
        await put(svc, home, 'heron-folder', 'ledger-heron.txt', `${CONTENTS[0]}, amended`);
        await ship();
      } finally {
        await svc.close();
      }
    };
    await Promise.all([shipElsewhere(), shipHere()]);

    // The head the operator publishes, away from the target.
    const status = await runCli(['offsite', 'status', '--json'], {
      ...storageEnv(storage),
      OFFSITE_URL: copy.url,
      OFFSITE_RECIPIENTS: keys.recipient,
    });
    assert.equal(status.code, 0, status.stderr);
    const head = status.json().head;
    assert.ok(head?.hash, status.stdout);
    headFile = path.join(scratch, 'head.json');
    await writeFile(headFile, JSON.stringify(head));

    // Oldest first: the head names the newest.
    generations = (await generationsOf(copy.dir)).sort((a, b) => Number(a.name === head.generation) - Number(b.name === head.generation));
    assert.equal(generations.length, 2, JSON.stringify(generations));
    assert.ok(generations[0]!.segments >= 4, `the first generation has at least 4 segments: ${JSON.stringify(generations)}`);
    assert.ok(generations[1]!.segments >= 2, `the second generation has changes after its snapshot: ${JSON.stringify(generations)}`);
    assert.deepEqual(
      { generation: head.generation, segment: head.segment },
      { generation: generations[1]!.name, segment: generations[1]!.segments - 1 },
    );

    // The signed pact's blob, as the newest generation names it.
    const report = await readCopy(new DirectoryTarget(copy.dir), {
      identities: parseIdentityFile(await readFile(keys.identityFile, 'utf8')),
      checkBlobs: false,
    });
    assert.equal(report.failure, undefined);
    const sha256 = createHash('sha256').update(CONTENTS[2]!).digest('hex');
    const newest = report.generations.find((generation) => generation.generation === head.generation)!;
    const entry = newest.segments.flatMap((segment) => segment.blobs).find((blob) => blob.sha256 === sha256);
    assert.ok(entry, 'the newest snapshot names the pact');
    pact = { key: entry.key, object: entry.object };
  });

  after(async () => {
    await storage?.drop();
    await otherStorage?.drop();
    await copy?.drop();
    await other?.drop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
    if (keys) await rm(keys.dir, { recursive: true, force: true });
  });

  test('nothing at the target reads as what it holds: no content, no folder or file name, in any byte or any name', async () => {
    const entries = await readdir(copy.dir, { recursive: true, withFileTypes: true });
    assert.ok(entries.some((entry) => entry.isFile() && entry.name.endsWith('.age')));
    for (const entry of entries) {
      const where = path.relative(copy.dir, path.join(entry.parentPath, entry.name));
      for (const secret of [...CONTENTS, ...NAMES, tenantName]) {
        assert.equal(where.includes(secret), false, `${where} is named after ${secret}`);
        if (entry.isFile()) {
          const bytes = await readFile(path.join(entry.parentPath, entry.name));
          assert.equal(bytes.includes(secret), false, `${where} holds ${secret} in plaintext`);
        }
      }
    }
  });

  test('the untampered copy verifies, with and without the published head', async () => {
    const [plain, headed] = await Promise.all([verify(copy.url), verify(copy.url, '--head-file', headFile)]);
    for (const result of [plain, headed]) {
      assert.equal(result.code, 0, result.stderr + result.stdout);
      const shown = result.json();
      assert.equal(shown.ok, true);
      assert.equal(shown.generations, 2);
      assert.ok(shown.blobs >= 4, result.stdout);
    }
    assert.match(plain.json().notes.join('\n'), /a truncation cannot be detected/);
    assert.deepEqual(headed.json().notes, []);
  });

  test('a flipped byte in a blob: verify names the blob; restore refuses, naming it, and writes nothing', async () => {
    const tampered = await copyOfTarget();
    const file = path.join(tampered.dir, pact.object);
    const bytes = await readFile(file);
    bytes[bytes.length - 1]! ^= 0x01;
    await writeFile(file, bytes);

    const destination = await mkdtemp(path.join(scratch, 'restore-'));
    const [verified, restored] = await Promise.all([
      verify(tampered.url),
      runCli(['offsite', 'restore', '--from', tampered.url, '--identity', keys.identityFile, '--json', '--data-dir', destination], {}),
    ]);
    assertBroken(verified, new RegExp(`the blob of ${escapeRegExp(pact.key)} \\(${escapeRegExp(pact.object)}\\) does not decrypt`));
    assertBroken(restored, new RegExp(`the blob of ${escapeRegExp(pact.key)} \\(${escapeRegExp(pact.object)}\\) could not be restored`));
    const left = await readdir(destination, { recursive: true, withFileTypes: true });
    assert.deepEqual(
      left.filter((entry) => entry.isFile()).map((entry) => path.relative(destination, path.join(entry.parentPath, entry.name))),
      [],
      'the refused restore left no metadata.sqlite and no stored file',
    );
    // Nothing is in the way of the next attempt: the untampered copy restores into the same directory.
    const again = await runCli(
      ['offsite', 'restore', '--from', copy.url, '--identity', keys.identityFile, '--json', '--data-dir', destination],
      {},
    );
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.ok(again.json().blobs >= 4, again.stdout);
  });

  test('a middle segment deleted: verify names it missing', async () => {
    const tampered = await copyOfTarget();
    const generation = generations[0]!.name;
    await unlink(segmentFile(tampered.dir, generation, 2));
    assertBroken(await verify(tampered.url), new RegExp(`segment 2 of generation ${generation} is missing`));
  });

  test('two segments swapped: verify names the segment that holds another', async () => {
    const tampered = await copyOfTarget();
    const generation = generations[0]!.name;
    const [one, two] = [segmentFile(tampered.dir, generation, 1), segmentFile(tampered.dir, generation, 2)];
    await rename(one, `${one}.swap`);
    await rename(two, one);
    await rename(`${one}.swap`, two);
    assertBroken(
      await verify(tampered.url),
      new RegExp(`segment 1 of generation ${generation} holds segment 2 of generation ${generation}: segments were moved or replaced`),
    );
  });

  test("a segment of another target put in one's place: verify names it as of another target", async () => {
    const tampered = await copyOfTarget();
    const generation = generations[0]!.name;
    const [foreign] = await generationsOf(other.dir);
    assert.ok(foreign && foreign.segments >= 2, 'the other target has a segment 1');
    await copyFile(segmentFile(other.dir, foreign.name, 1), segmentFile(tampered.dir, generation, 1));
    assertBroken(
      await verify(tampered.url),
      new RegExp(`segment 1 of generation ${generation} was shipped to another target .*it does not belong to this copy`),
    );
  });

  test('the newest segment deleted: only the published head shows the truncation', async () => {
    const tampered = await copyOfTarget();
    const newest = generations[1]!;
    await unlink(segmentFile(tampered.dir, newest.name, newest.segments - 1));
    const [plain, headed] = await Promise.all([verify(tampered.url), verify(tampered.url, '--head-file', headFile)]);
    assert.equal(plain.code, 0, plain.stderr + plain.stdout);
    assert.equal(plain.json().ok, true);
    assert.match(
      plain.json().notes.join('\n'),
      new RegExp(`complete up to segment ${newest.segments - 2} of generation ${newest.name}; a truncation cannot be detected`),
    );
    assertBroken(
      headed,
      new RegExp(
        `the published head names segment ${newest.segments - 1} of generation ${newest.name}; the copy ends at segment ${newest.segments - 2}: it was truncated`,
      ),
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
