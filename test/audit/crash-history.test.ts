import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AuditChainEntry } from '../../src/audit-chain/chain-entry.ts';
import { verifyExport } from '../../src/audit-chain/verify-export.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { openDatabase } from '../../src/metadata/database.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { seedTenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { type ServiceProcess, spawnService, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort, storageEnv } from '../helpers/test-service.ts';
import { testSize } from '../helpers/test-size.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

/**
 * Issue 34, "One truthful history": a change and its audit entry commit together. The service
 * (`wallet-admin serve`, its own process) is SIGKILLed at random instants while signed requests
 * upload (new files and replacements), delete, restore single files and change admins (names,
 * permissions, channel links) at once; after the last restart the exported chain must verify, and
 * the live state and the chain must tell the same story, counted change by change.
 *
 * Each kill costs a start of the service and a run until it (about 2 s on a loaded 2-core machine). The full sizes are
 * `npm run soak`'s; `npm test` runs the CI sizes (test/helpers/test-size.ts).
 */
const KILLS: Record<string, number> = testSize({ sqlite: 10, postgres: 10 }, { sqlite: 40, postgres: 30 });

const FOLDER = 'docs';
/** In both backups: uploaded, deleted, and restored by one restorer each (see restorer below). */
const RESTORABLE = Array.from({ length: 6 }, (_, i) => `kept-${i}.bin`);
/** In no backup: created, replaced and deleted by uploads and deletes only. */
const FRESH = Array.from({ length: 4 }, (_, i) => `fresh-${i}.bin`);
const WRITERS = 3;
const RESTORERS = 2;
const ADMIN_WORKERS = 2;
const MEMBERS = 2;
const GRANTABLE = ['files:read', 'files:write', 'audit:read', 'admins:read'];

const silent: Logger = { warn() {}, error() {} };

/** What an answered request says happened: done (2xx), refused (an expected 4xx), or a 503's outcome. */
type Outcome = 'done' | 'refused' | 'unchanged' | 'unknown';

function outcomeOf(response: HttpResponse, refusals: number[] = []): Outcome {
  if (response.status >= 200 && response.status < 300) return 'done';
  if (refusals.includes(response.status)) return 'refused';
  if (response.status === 503) {
    const { outcome } = response.json();
    if (outcome === 'unchanged' || outcome === 'unknown') return outcome;
  }
  assert.fail(`${response.url} answered ${response.status}: ${response.body}`);
}

/** The error a request gets when the process serving it is killed (or not listening yet). */
function isCutOff(error: unknown): boolean {
  return ['ECONNRESET', 'ECONNREFUSED', 'EPIPE'].includes((error as { code?: string }).code ?? '');
}

const pick = <T>(items: readonly T[]): T => items[randomInt(items.length)]!;
const sorted = (items: readonly string[]): string[] => [...items].sort();
const unquoted = (etag: string | string[] | undefined): string => String(etag).replace(/^"|"$/g, '');

/** The requests that got an answer, with what they asked for. */
interface Answers {
  uploads: { filename: string; sha: string; outcome: Outcome }[];
  deletes: { filename: string; sha: string; outcome: Outcome }[];
  restores: { filename: string; sha: string; kept: string | undefined; outcome: Outcome }[];
  renames: { adminId: string; displayName: string; outcome: Outcome }[];
  other: Outcome[];
}

/** One change of a file as the state records it, or as an entry does: comparable labels. */
type Step = string;

/** The stored state the chain is counted against, read beside the stopped service. */
interface StoredState {
  live: { folder: string; filename: string; sha256: string; since_seq: number }[];
  /** The replaced and deleted versions: each ended at `until_seq`, by a write or a delete. */
  versions: {
    id: string;
    folder: string;
    filename: string;
    kind: string;
    sha256: string;
    since_seq: number | null;
    until_seq: number | null;
  }[];
  admins: Map<string, AdminRecord>;
}

type AdminRecord = { displayName: string; permissions: string[]; channelIds: string[] };

async function readState(
  location: { dataDir: string; databaseUrl: string | undefined },
  channelId: string,
  members: string[],
): Promise<StoredState> {
  const { db } = await openDatabase({ dataDir: location.dataDir, databaseUrl: location.databaseUrl, logger: silent });
  try {
    const live = await db.selectFrom('files').selectAll().where('channel_id', '=', channelId).execute();
    const versions = await db
      .selectFrom('file_versions')
      .selectAll()
      .where('channel_id', '=', channelId)
      .where('kind', 'in', ['replaced', 'deleted'])
      .execute();
    const names = await db.selectFrom('admins').select(['id', 'display_name']).where('id', 'in', members).execute();
    const permissions = await db.selectFrom('admin_permissions').selectAll().where('admin_id', 'in', members).execute();
    const links = await db.selectFrom('channel_admins').selectAll().where('admin_id', 'in', members).execute();
    const admins = new Map<string, AdminRecord>();
    for (const { id, display_name } of names) {
      admins.set(id, {
        displayName: display_name,
        permissions: sorted(permissions.filter((row) => row.admin_id === id).map((row) => row.permission)),
        channelIds: sorted(links.filter((row) => row.admin_id === id).map((row) => row.channel_id)),
      });
    }
    return { live, versions, admins };
  } finally {
    await db.destroy();
  }
}

/**
 * Each file's changes as the state holds them, in the order of its channel's clock, beside its
 * entries in chain order. Every state of a file's bytes (a kept version's span, or the live record)
 * was made by one upload (the first time those bytes appear: every upload sends new ones) or one
 * restore (bytes seen before); each deleted version was ended by one delete, whose entry names it.
 */
function fileHistories(entries: AuditChainEntry[], state: StoredState, channelId: string) {
  const filenames = new Set([...state.live, ...state.versions].map((row) => row.filename));
  for (const entry of entries) if (entry.channelId === channelId && entry.filename !== null) filenames.add(entry.filename);
  return [...filenames].map((filename) => {
    const ofFile = <R extends { folder: string; filename: string }>(rows: R[]) =>
      rows.filter((row) => row.folder === FOLDER && row.filename === filename);
    const changes: { seq: number; write?: string; deleted?: { id: string; sha: string } }[] = [];
    for (const row of [...ofFile(state.versions), ...ofFile(state.live)]) {
      // Every version here was kept by a write of this release, which records its span.
      changes.push({ seq: Number(row.since_seq), write: row.sha256 });
    }
    for (const row of ofFile(state.versions)) {
      if (row.kind === 'deleted') changes.push({ seq: Number(row.until_seq), deleted: { id: row.id, sha: row.sha256 } });
    }
    changes.sort((x, y) => x.seq - y.seq);
    const seen = new Set<string>();
    const steps: Step[] = changes.map(({ write, deleted }) => {
      if (deleted) return `delete ${deleted.id} ${deleted.sha}`;
      const action = seen.has(write!) ? 'restore' : 'upload';
      seen.add(write!);
      return `${action} ${write}`;
    });
    const logged: Step[] = entries
      .filter((e) => e.channelId === channelId && e.folder === FOLDER && e.filename === filename && e.result === 'ok')
      .filter((e) => ['upload', 'restore', 'delete'].includes(e.action))
      .map((e) => (e.action === 'delete' ? `delete ${e.versionId} ${e.sha256}` : `${e.action} ${e.sha256}`));
    return { filename, steps, logged };
  });
}

/**
 * What the histories disagree on: counted first (how many committed changes lack their entry, how
 * many entries name no change in the state: a phantom), then, where the counts agree, the order.
 */
function fileProblems(histories: ReturnType<typeof fileHistories>): { problems: string[]; counted: number } {
  let missing = 0;
  let phantoms = 0;
  for (const { steps, logged } of histories) {
    const unmatched = [...logged];
    for (const step of steps) {
      const at = unmatched.indexOf(step);
      if (at === -1) missing++;
      else unmatched.splice(at, 1);
    }
    phantoms += unmatched.length;
  }
  const counted = histories.reduce((sum, { steps }) => sum + steps.length, 0);
  const problems: string[] = [];
  if (missing > 0) problems.push(`${missing} of ${counted} committed file changes have no entry`);
  if (phantoms > 0) problems.push(`${phantoms} entries name a file change the state does not hold`);
  if (problems.length === 0) {
    for (const { filename, steps, logged } of histories) {
      if (logged.join() !== steps.join()) problems.push(`${filename}: its entries are not its changes in the order they committed`);
    }
  }
  return { problems, counted };
}

/** A 2xx's change is in the state (and so, by fileProblems, in the chain); a 503 "unchanged" is in neither. */
function answerProblems(answers: Answers, histories: ReturnType<typeof fileHistories>, state: StoredState, entries: AuditChainEntry[]) {
  const problems: string[] = [];
  const stepsOf = new Map(histories.map(({ filename, steps }) => [filename, steps]));
  const everyStep = histories.flatMap(({ steps }) => steps);
  const loggedShas = new Set(entries.filter((e) => e.result === 'ok').map((e) => e.sha256));
  for (const { filename, sha, outcome } of answers.uploads) {
    if (outcome === 'done' && !stepsOf.get(filename)?.includes(`upload ${sha}`))
      problems.push(`an answered upload of ${filename} is not in the state`);
    if (outcome === 'unchanged' && (everyStep.some((step) => step.endsWith(sha)) || loggedShas.has(sha))) {
      problems.push(`an upload of ${filename} answered "unchanged" is in the state or the chain`);
    }
  }
  for (const { filename, sha, outcome } of answers.deletes) {
    const deleted = stepsOf.get(filename)?.some((step) => step.startsWith('delete ') && step.endsWith(sha));
    if (outcome === 'done' && !deleted) problems.push(`an answered delete of ${filename} is not in the state`);
  }
  const versionById = new Map(state.versions.map((row) => [row.id, row]));
  const shaSince = new Map([...state.versions, ...state.live].map((row) => [`${row.filename} ${row.since_seq}`, row.sha256]));
  for (const { filename, sha, kept, outcome } of answers.restores) {
    if (outcome !== 'done') continue;
    if (!stepsOf.get(filename)?.includes(`restore ${sha}`)) problems.push(`an answered restore of ${filename} is not in the state`);
    const version = kept === undefined ? undefined : versionById.get(kept);
    if (kept !== undefined && (version?.kind !== 'replaced' || shaSince.get(`${filename} ${version.until_seq}`) !== sha)) {
      problems.push(`the version ${kept} an answered restore of ${filename} kept is not followed by the restored bytes`);
    }
  }
  return problems;
}

/**
 * Each admin's entries replayed from its creation: each must be a change of the record (a link
 * where there was none, an unlink where there was one; an update's record shows the links as they
 * were), and the replay must end where the stored admin is. A rename answered done made its name
 * once; one answered "unchanged" never.
 */
function adminProblems(
  entries: AuditChainEntry[],
  state: StoredState,
  renames: Answers['renames'],
): { problems: string[]; changes: number } {
  const problems: string[] = [];
  const namesMade = new Map<string, number>();
  let changes = 0;
  for (const [adminId, stored] of state.admins) {
    const own = entries.filter(
      (e) =>
        e.targetAdminId === adminId &&
        e.result === 'ok' &&
        ['admin.create', 'admin.update', 'channel.link', 'channel.unlink'].includes(e.action),
    );
    if (own[0]?.action !== 'admin.create') {
      problems.push(`${adminId}: its history does not start with its creation`);
      continue;
    }
    const first = (own[0].change as { after: AdminRecord }).after;
    const replayed: AdminRecord = {
      displayName: first.displayName,
      permissions: sorted(first.permissions),
      channelIds: sorted(first.channelIds),
    };
    for (const entry of own.slice(1)) {
      const after = (entry.change as { after: Partial<AdminRecord> }).after;
      const where = `${adminId}, entry ${entry.seq} (${entry.action})`;
      if (entry.action === 'admin.update') {
        if (sorted(after.channelIds!).join() !== replayed.channelIds.join())
          problems.push(`${where}: its record shows other links than there were`);
        if (after.displayName !== replayed.displayName) namesMade.set(after.displayName!, (namesMade.get(after.displayName!) ?? 0) + 1);
        replayed.displayName = after.displayName!;
        replayed.permissions = sorted(after.permissions!);
      } else {
        const linking = entry.action === 'channel.link';
        if (replayed.channelIds.includes(entry.channelId!) === linking) problems.push(`${where}: records a change already made`);
        const others = replayed.channelIds.filter((c) => c !== entry.channelId);
        replayed.channelIds = sorted(linking ? [...others, entry.channelId!] : others);
        if (sorted(after.channelIds!).join() !== replayed.channelIds.join())
          problems.push(`${where}: its record is not the links replayed`);
      }
      changes++;
    }
    if (JSON.stringify(stored) !== JSON.stringify(replayed)) {
      problems.push(`${adminId}: stored as ${JSON.stringify(stored)}, its entries end at ${JSON.stringify(replayed)}`);
    }
  }
  for (const { displayName, outcome } of renames) {
    const made = namesMade.get(displayName) ?? 0;
    if (made > 1 || (outcome === 'done' && made !== 1))
      problems.push(`the rename to ${displayName}, answered ${outcome}, has ${made} entries`);
    if (outcome === 'unchanged' && made !== 0) problems.push(`the rename to ${displayName} answered "unchanged" has an entry`);
  }
  return { problems, changes };
}

for (const engine of ENGINES) {
  describe(`SIGKILL during uploads, deletes, restores and admin changes (${engine})`, () => {
    test(`${KILLS[engine]} kills at random instants: every committed change has exactly one entry, and the exported chain verifies`, async (t) => {
      const storage = await createStorage(engine);
      t.after(() => storage.drop());
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = { ...storageEnv(storage), PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production' }; // production: no demo seed
      const fixture = await seedTenantFixture(storage, 'History');
      const channelId = fixture.channel.id;

      let current: ServiceProcess | undefined;
      t.after(() => current?.stop());
      const start = async () => {
        current = spawnService(env);
        await waitUntilReady(current, baseUrl);
      };
      await start();
      const auth = { ...(await signIn(fixture.ownerWallet, `127.0.0.1:${port}`)) };
      const files = new FilesClient(baseUrl, channelId, auth);
      const send = (method: string, path: string, body?: unknown) =>
        request(baseUrl, path, {
          method,
          headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const head = (filename: string) => request(baseUrl, files.filePath(FOLDER, filename), { method: 'HEAD', headers: auth });

      // Two backups that each restorable file differs between: a restore always has a source unlike the live bytes.
      const backupSha: Record<'a' | 'b', Record<string, string>> = { a: {}, b: {} };
      const backupAt: Record<'a' | 'b', string> = { a: '', b: '' };
      for (const side of ['a', 'b'] as const) {
        for (const filename of RESTORABLE) {
          const bytes = randomBytes(1024);
          assert.equal((await files.put(FOLDER, filename, bytes)).status, side === 'a' ? 201 : 200);
          backupSha[side][filename] = sha256(bytes);
        }
        if (side === 'b') await nextSecond(); // a backup's timestamp is its second: the two need their own
        const backup = await files.backup();
        assert.equal(backup.status, 201, backup.body);
        backupAt[side] = backup.json().timestamp;
      }
      const created = await send('POST', '/api/channels', { name: 'side' });
      assert.equal(created.status, 201, created.body);
      const sideChannel: string = created.json().id;
      const members: string[] = [];
      for (let i = 0; i < MEMBERS; i++) {
        const admin = await send('POST', '/api/admins', {
          displayName: `Member ${i}`,
          wallet: newWallet().address,
          permissions: ['files:read'],
          channels: [channelId],
        });
        assert.equal(admin.status, 201, admin.body);
        members.push(admin.json().id);
      }

      const answers: Answers = { uploads: [], deletes: [], restores: [], renames: [], other: [] };
      let stop = false;
      let failure: unknown;
      /** Requests that ask for a change and have no answer yet: what a kill lands on. */
      let changesInFlight = 0;
      let answered = 0;
      let named = 0;
      const change = async (ask: () => Promise<HttpResponse>): Promise<HttpResponse> => {
        changesInFlight++;
        try {
          const answer = await ask();
          answered++;
          return answer;
        } finally {
          changesInFlight--;
        }
      };
      /** Runs `step` until the round stops; a request cut off by the kill ends the worker, any other failure fails the test. */
      const loop = async (step: () => Promise<void>) => {
        while (!stop) {
          try {
            await step();
          } catch (error) {
            if (stop && isCutOff(error)) return;
            failure ??= error;
            throw error;
          }
        }
      };
      const writer = () =>
        loop(async () => {
          const filename = pick([...RESTORABLE, ...FRESH]);
          if (randomInt(3) < 2) {
            const bytes = randomBytes(randomInt(64, 16 * 1024));
            const answer = await change(() => files.put(FOLDER, filename, bytes));
            answers.uploads.push({ filename, sha: sha256(bytes), outcome: outcomeOf(answer) });
            return;
          }
          const live = await head(filename);
          if (outcomeOf(live, [404]) !== 'done') return;
          const answer = await change(() => files.delete(FOLDER, filename, { 'If-Match': live.headers.etag }));
          answers.deletes.push({ filename, sha: unquoted(live.headers.etag), outcome: outcomeOf(answer, [404, 412]) });
        });
      // Each restorable file has one restorer, which reads the live bytes and restores the backup that
      // differs from them. Only uploads (new bytes) and deletes can come in between, so no restore
      // lands on bytes already live: each answered restore is a change, with its one entry.
      const restorer = (r: number) =>
        loop(async () => {
          const filename = pick(RESTORABLE.filter((_, i) => i % RESTORERS === r));
          const live = await head(filename);
          const liveSha = outcomeOf(live, [404]) === 'done' ? unquoted(live.headers.etag) : undefined;
          const to = liveSha === backupSha.a[filename] ? 'b' : liveSha === backupSha.b[filename] ? 'a' : pick(['a', 'b'] as const);
          const answer = await change(() => files.restore(FOLDER, filename, `?backupTimestamp=${backupAt[to]}`));
          const kept = answer.headers['x-kept-version-id'] as string | undefined;
          answers.restores.push({ filename, sha: backupSha[to][filename]!, kept, outcome: outcomeOf(answer) });
        });
      const administrator = () =>
        loop(async () => {
          const adminId = pick(members);
          const kind = randomInt(4);
          if (kind === 3) {
            const answer = await change(() => send(pick(['PUT', 'DELETE']), `/api/channels/${sideChannel}/admins/${adminId}`));
            answers.other.push(outcomeOf(answer));
            return;
          }
          const displayName = `Member ${adminId.slice(-6)} #${named++}`;
          const permissions = GRANTABLE.filter(() => randomInt(2) === 1);
          const body = kind === 0 ? { displayName } : kind === 1 ? { permissions } : { displayName, permissions };
          const answer = await change(() => send('PATCH', `/api/admins/${adminId}`, body));
          if ('displayName' in body) answers.renames.push({ adminId, displayName, outcome: outcomeOf(answer) });
          else answers.other.push(outcomeOf(answer));
        });

      let killsMidFlight = 0;
      for (let kill = 0; kill < KILLS[engine]!; kill++) {
        if (kill > 0) await start();
        stop = false;
        const workers = [
          ...Array.from({ length: WRITERS }, writer),
          ...Array.from({ length: RESTORERS }, (_, r) => restorer(r)),
          ...Array.from({ length: ADMIN_WORKERS }, administrator),
        ];
        const before = answered;
        await sleep(randomInt(100, 800));
        // However slow the machine, each run answers something before its kill: every round does work.
        while (answered === before && failure === undefined) await sleep(20);
        if (changesInFlight > 0) killsMidFlight++;
        stop = true;
        current!.child.kill('SIGKILL');
        await current!.exited;
        await Promise.all(workers);
      }

      // The last restart settles what the kills left; then the chain is exported and checked, and
      // counted against the state the stopped service leaves.
      await start();
      const exported = await request(baseUrl, '/api/audit/export', { headers: auth });
      assert.equal(exported.status, 200, exported.body);
      const lines = exported.body.split('\n').filter((line) => line !== '');
      const verified = await verifyExport(lines);
      assert.ok(verified.ok, `the exported chain verifies: ${JSON.stringify(verified.failure)}`);
      await current!.stop();
      const entries = lines.map((line) => JSON.parse(line) as AuditChainEntry);
      const state = await readState(storage, channelId, members);

      const histories = fileHistories(entries, state, channelId);
      const fileCheck = fileProblems(histories);
      const adminCheck = adminProblems(entries, state, answers.renames);
      const problems = [...fileCheck.problems, ...answerProblems(answers, histories, state, entries), ...adminCheck.problems];
      const outcomes = [...answers.uploads, ...answers.deletes, ...answers.restores, ...answers.renames].map((a) => a.outcome);
      outcomes.push(...answers.other);
      const count = (outcome: Outcome) => outcomes.filter((o) => o === outcome).length;
      t.diagnostic(
        `${KILLS[engine]} SIGKILLs (${killsMidFlight} with changes asked and not yet answered); ${count('done')} changes answered done, ` +
          `${count('refused')} refused, ${count('unchanged')} unchanged, ${count('unknown')} unknown; ${fileCheck.counted} file changes and ` +
          `${adminCheck.changes} admin changes counted against ${verified.entries} entries (chain verified); ${problems.length} problems`,
      );
      assert.deepEqual(problems, [], 'every committed change has exactly one entry, and every entry one change');
      assert.ok(killsMidFlight >= KILLS[engine]! / 2, 'most kills landed while changes were being made');
    });
  });
}
