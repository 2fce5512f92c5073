import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyExport } from '../../src/audit-chain/verify-export.ts';
import { fileLockKey } from '../../src/files/blob-layout.ts';
import { PostgresLocks } from '../../src/locks/postgres-locks.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type ServiceProcess, spawnService, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort, type Storage } from '../helpers/test-service.ts';
import { newWallet, signIn, signTypedData, type TestWallet } from '../helpers/wallets.ts';

const DOMAIN = 'takeover.example.test';
/** Short, so that a run left behind is taken over within seconds (PROPOSAL_RUN_LEASE_SECONDS). */
const LEASE_SECONDS = 2;
const FILES = ['f01', 'f02', 'f03', 'f04', 'f05', 'f06', 'f07', 'f08'].map((n) => `${n}.txt`);
/** The file whose lock the test holds: the run waits there, mid-way, until the test lets it go. */
const HELD = 'f05.txt';

interface Instance {
  process: ServiceProcess;
  baseUrl: string;
}

/**
 * A held folder restore whose instance dies mid-run (SIGKILL while it waits for a file's lock the
 * test holds), with two more instances on the same PostgreSQL database and disk: within a few
 * leases one of them takes the run over, exactly once, and completes it when nothing it acts on
 * changed since but by its own steps, or marks it failed, with the reason, when another hand
 * changed the folder meanwhile (docs/approvals.md, "A run cut short").
 */
describe('a proposal whose process dies mid-run, on two other instances (postgres)', () => {
  let storage: Storage;
  let store: MetadataStore;
  let locks: PostgresLocks;
  let fixture: TenantFixture;
  let ana: { id: string; wallet: TestWallet };
  let owner: AdminApi;
  const survivors: Instance[] = [];
  const started: ServiceProcess[] = [];

  async function startInstance(): Promise<Instance> {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const served = spawnService({
      DATABASE_URL: storage.databaseUrl!,
      DATA_DIR: storage.dataDir,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      AUTH_DOMAINS: DOMAIN,
      PROPOSAL_RUN_LEASE_SECONDS: String(LEASE_SECONDS),
    });
    started.push(served);
    await waitUntilReady(served, baseUrl);
    return { process: served, baseUrl };
  }

  before(async () => {
    storage = await createStorage('postgres');
    store = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
    locks = new PostgresLocks(storage.databaseUrl!, createLogger('error'));
    fixture = await createTenantFixture(store, 'Takeover');
    const anaWallet = newWallet();
    const created = await store.createAdmin({
      tenantId: fixture.tenant.id,
      wallet: anaWallet.address,
      displayName: 'Ana',
      ownerAdminId: fixture.owner.id,
      permissions: ['files:read', 'files:write', 'files:restore'],
    });
    await store.linkChannel(fixture.channel.id, created.id);
    ana = { id: created.id, wallet: anaWallet };
    survivors.push(await startInstance(), await startInstance());
    owner = new AdminApi(survivors[0]!.baseUrl, fixture.ownerWallet, DOMAIN);
    const policy = await owner.send('PUT', '/api/policies', {
      rules: [{ operation: 'folder.restore', approvals: 2, permission: 'files:restore' }],
    });
    assert.equal(policy.status, 200, policy.body);
  });
  after(async () => {
    await Promise.all(started.map((served) => served.stop()));
    await locks?.close();
    await store?.close();
    await storage?.drop();
  });

  /** The folder's files backed up, then all changed: a restore of the folder replaces each one. */
  async function driftedFolder(folder: string): Promise<{ backup: string; files: FilesClient }> {
    const files = new FilesClient(survivors[0]!.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, DOMAIN)) });
    for (const name of FILES) assert.ok([200, 201].includes((await files.put(folder, name, `${name} backed up`)).status));
    await nextSecond();
    const backup = (await files.backup()).json().timestamp as string;
    for (const name of FILES) assert.equal((await files.put(folder, name, `${name} changed`)).status, 200);
    return { backup, files };
  }

  /**
   * The restore of `folder` proposed, approved by both on an instance of its own that then dies
   * while the run waits for HELD's lock (some files restored already, HELD not); the lock is given
   * back only after `meanwhile` ran.
   */
  async function runCutShort(folder: string, backup: string, meanwhile: () => Promise<void> = async () => {}): Promise<string> {
    const runner = await startInstance();
    const asOwner = new AdminApi(runner.baseUrl, fixture.ownerWallet, DOMAIN);
    const asAna = new AdminApi(runner.baseUrl, ana.wallet, DOMAIN);
    const proposed = await asOwner.post(`/api/channels/${fixture.channel.id}/folders/${folder}/restore?backupTimestamp=${backup}`);
    assert.equal(proposed.status, 202, proposed.body);
    const proposal = proposed.json();
    const intent = async (wallet: TestWallet) => ({ wallet: wallet.address, signature: await signTypedData(wallet, proposal.typedData) });
    assert.equal((await asOwner.post(`/api/proposals/${proposal.id}/approvals`, await intent(fixture.ownerWallet))).status, 200);

    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const lock = locks.runExclusive(fileLockKey(fixture.channel.id, folder, HELD), async () => {
      holding();
      await released;
    });
    await held;
    // The approval that brings the count runs the restore in its own request: it never answers.
    const approving = asAna.post(`/api/proposals/${proposal.id}/approvals`, await intent(ana.wallet)).catch(() => undefined);
    await until(async () => (await ownSteps(proposal.id)) >= FILES.length - 1, 'the run restored every file but the held one');
    runner.process.child.kill('SIGKILL');
    await runner.process.exited.catch(() => undefined);
    await approving;
    assert.equal((await proposalRow(proposal.id)).status, 'running', 'the run was cut short');
    await meanwhile();
    release();
    await lock;
    return proposal.id;
  }

  const proposalRow = async (id: string) => (await store.getProposal(fixture.tenant.id, id))!;
  /** The file restores of the proposal's run in the chain (each one step, carrying its proposal's id). */
  const ownSteps = async (id: string) =>
    (await chain()).filter((e) => e.proposalId === id && e.action === 'restore' && e.filename !== null && e.result === 'ok').length;
  const chain = async () => (await store.files.chainedAudit(fixture.tenant.id, 0, 10_000)).map((c) => c.event);

  test('one of the two takes it over once, within the bound, and completes what is left; every file restored once', async () => {
    const { backup, files } = await driftedFolder('docs');
    const id = await runCutShort('docs', backup);
    const cut = Date.now();
    await until(async () => (await proposalRow(id)).status !== 'running', 'the run is taken over and ends');
    // A lease after the last step, and half a lease between sweeps: well within 3 leases, and some slack for a loaded machine.
    assert.ok(Date.now() - cut < LEASE_SECONDS * 1000 * 3 + 10_000, `ended ${Date.now() - cut} ms after the cut`);
    const ended = await proposalRow(id);
    assert.equal(ended.status, 'executed', JSON.stringify(ended));
    assert.equal(ended.run?.attempts, 1, 'taken over exactly once');
    assert.equal(ended.result?.resumed, true);
    assert.equal(ended.result?.filesBeforeInterruption, FILES.length - 1);
    assert.equal(ended.result?.replaced, 1, 'what was left: the held file');
    for (const name of FILES) assert.equal((await files.get('docs', name)).body, `${name} backed up`);

    const entries = await chain();
    for (const name of FILES) {
      const restores = entries.filter((e) => e.proposalId === id && e.action === 'restore' && e.filename === name);
      assert.equal(restores.length, 1, `${name} restored once`);
    }
    assert.equal(
      entries.filter((e) => e.action === 'proposal.execute' && (e.change?.after as { proposalId?: string })?.proposalId === id).length,
      1,
    );
    // The run's undo is the safety backup its first attempt took, before any change: one backup, not two.
    assert.equal(entries.filter((e) => e.proposalId === id && e.action === 'backup').length, 1);
    assert.equal(ended.result?.safetyBackup, entries.find((e) => e.proposalId === id && e.action === 'backup')?.backupTimestamp);
    const exported = (await owner.get('/api/audit/export')).body.split('\n').filter((l) => l !== '');
    const verified = await verifyExport(exported);
    assert.equal(verified.ok, true, JSON.stringify(verified.failure));
  });

  test('another hand changed the folder while it was cut short: it is failed, with the reason, and nothing more is done', async () => {
    const { backup, files } = await driftedFolder('reports');
    const id = await runCutShort('reports', backup, async () => {
      // An upload through a survivor while the run is nobody's: not the proposal's own step.
      assert.equal((await files.put('reports', 'f01.txt', 'written meanwhile')).status, 200);
    });
    await until(async () => (await proposalRow(id)).status !== 'running', 'the run is taken over and ends');
    const ended = await proposalRow(id);
    assert.equal(ended.status, 'failed', JSON.stringify(ended));
    assert.match(ended.reason ?? '', /changed meanwhile by another hand \(upload by adm_/);
    assert.equal(ended.result?.code, 'RUN_INTERRUPTED');
    assert.equal((await files.get('reports', HELD)).body, `${HELD} changed`, 'the held file was left as it was');
    assert.equal((await files.get('reports', 'f01.txt')).body, 'written meanwhile');
    const closes = (await chain()).filter(
      (e) => e.action === 'proposal.close' && (e.change?.after as { proposalId?: string })?.proposalId === id,
    );
    assert.equal(closes.length, 1, 'closed once');
  });
});

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting until ${what}`);
}
