import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Migrator } from 'kysely';
import { verifyExport } from '../../src/audit-chain/verify-export.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openPostgresDatabase, openSqliteDatabase, SQLITE_FILE_NAME } from '../../src/metadata/database.ts';
import { migrateToLatest } from '../../src/metadata/migrate.ts';
import { migrationNames, migrationProvider } from '../../src/metadata/migrations/index.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { noteCredential } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

const DOMAIN = 'held.example.com';
const DAY = 86_400_000;
const PROPOSAL_SECONDS = 120;

async function intentOf(wallet: TestWallet, typedData: Record<string, any>) {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return { wallet: wallet.address, signature: await wallet.account.signTypedData({ ...typedData, types } as never) };
}

/**
 * Each held operation, approved by two admins, does what it said and nothing else; one whose
 * target changed in between is invalidated; one not approved in time expires. The intents end up
 * in the audit log, where the offline verifier checks their signatures and quorum.
 */
for (const engine of ENGINES) {
  describe(`held operations run once approved (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let owner: AdminApi;
    let ana: { id: string; wallet: TestWallet; api: AdminApi };
    let bo: { id: string; wallet: TestWallet; api: AdminApi };
    let files: FilesClient;
    const backups: string[] = [];
    let shift = 0;
    const channel = () => `/api/channels/${fixture.channel.id}`;
    const ALL = [
      'files:read',
      'files:write',
      'files:restore',
      'backups:create',
      'backups:delete',
      'backups:lock',
      'admins:read',
      'admins:manage',
    ];

    before(async () => {
      svc = await startTestService(engine, {
        env: { AUTH_DOMAINS: DOMAIN, PROPOSAL_SECONDS: String(PROPOSAL_SECONDS) },
        now: () => Date.now() + shift,
      });
      fixture = await createTenantFixture(svc.service.store);
      owner = new AdminApi(svc.baseUrl, fixture.ownerWallet, DOMAIN);
      files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, DOMAIN)) });
      const colleague = async (name: string) => {
        const wallet = newWallet();
        const made = await owner.post('/api/admins', {
          displayName: name,
          wallet: wallet.address,
          permissions: ALL,
          channels: [fixture.channel.id],
        });
        assert.equal(made.status, 201, made.body);
        return { id: made.json().id as string, wallet, api: new AdminApi(svc.baseUrl, wallet, DOMAIN) };
      };
      ana = await colleague('Ana');
      bo = await colleague('Bo');
      const rules = [
        'backup.delete:backups:delete',
        'backup.lock:backups:lock',
        'invitation.create:admins:manage',
        'admin.change:admins:manage',
        'wallet.add:admins:manage',
        'folder.restore:files:restore',
      ].map((r) => {
        const [operation, ...permission] = r.split(':');
        return { operation, approvals: 2, permission: permission.join(':') };
      });
      assert.equal((await owner.send('PUT', '/api/policies', { rules })).status, 200);
      for (const version of ['one', 'two']) {
        assert.ok([200, 201].includes((await files.put('docs', 'a.txt', version)).status));
        await nextSecond();
        backups.push((await files.backup()).json().timestamp);
      }
    });
    after(() => svc.close());

    /** Proposed by the owner, its intent and Ana's: the proposal as the second intent left it. */
    async function approvedByTwo(answer: { status: number; body: string; json(): any }) {
      assert.equal(answer.status, 202, answer.body);
      const proposal = answer.json();
      assert.equal(
        (await owner.post(`/api/proposals/${proposal.id}/approvals`, await intentOf(fixture.ownerWallet, proposal.typedData))).json()
          .status,
        'pending',
      );
      const second = await ana.api.post(`/api/proposals/${proposal.id}/approvals`, await intentOf(ana.wallet, proposal.typedData));
      assert.equal(second.status, 200, second.body);
      return second.json();
    }

    test('a lock, then a delete proposed before it: the lock runs, the delete is invalidated; another delete runs', async () => {
      const deleteFirst = await owner.delete(`${channel()}/backups/${backups[0]}`);
      assert.equal(deleteFirst.status, 202, deleteFirst.body);
      const until = new Date(Date.now() + 30 * DAY).toISOString();
      const locked = await approvedByTwo(await owner.send('PUT', `${channel()}/backups/${backups[0]}/lock`, { mode: 'compliance', until }));
      assert.equal(locked.status, 'executed', JSON.stringify(locked));
      assert.equal(locked.result.lock.mode, 'compliance');
      const stale = await approvedByTwo({ status: 202, body: deleteFirst.body, json: () => deleteFirst.json() });
      assert.equal(stale.status, 'invalidated');
      assert.match(stale.reason, /plan changed/);
      const kept = (await files.backups()).json().items.map((b: { timestamp: string }) => b.timestamp);
      assert.ok(kept.includes(backups[0]), 'the locked backup is still there');
      const deleted = await approvedByTwo(await owner.delete(`${channel()}/backups/${backups[1]}`));
      assert.equal(deleted.status, 'executed', JSON.stringify(deleted));
      assert.ok(!(await files.backups()).json().items.some((b: { timestamp: string }) => b.timestamp === backups[1]));
    });

    test('an admin change, a wallet and an invitation, each run once approved; the token is its proposer’s alone', async () => {
      const suspended = await approvedByTwo(await owner.patch(`/api/admins/${bo.id}`, { status: 'SUSPENDED' }));
      assert.equal(suspended.status, 'executed', JSON.stringify(suspended));
      assert.equal((await owner.get(`/api/admins/${bo.id}`)).json().status, 'SUSPENDED');
      const extra = newWallet();
      const added = await approvedByTwo(await owner.addWallet(fixture.owner.id, extra));
      assert.equal(added.status, 'executed', JSON.stringify(added));
      assert.ok(
        (await owner.get(`/api/admins/${fixture.owner.id}/wallets`))
          .json()
          .items.some((w: { address: string }) => w.address.toLowerCase() === extra.address.toLowerCase()),
      );
      const invited = await approvedByTwo(await owner.post('/api/invitations', { permissions: ['files:restore'], expiresIn: 3600 }));
      assert.equal(invited.status, 'executed');
      assert.equal(invited.result.token, undefined, 'the approver does not see the token');
      const seenByProposer = (await owner.get(`/api/proposals/${invited.id}`)).json();
      assert.match(seenByProposer.result.token, /^wai_/);
      noteCredential(seenByProposer.result.token);
      assert.equal((await owner.get('/api/invitations')).json().items.length, 1);
    });

    test("a held invitation's token is shown once, to its proposer's first read; then only its SHA-256 is kept, also of earlier releases' rows", async () => {
      const invited = await approvedByTwo(await owner.post('/api/invitations', { permissions: ['files:restore'], expiresIn: 3600 }));
      assert.equal(invited.status, 'executed', JSON.stringify(invited));
      assert.deepEqual(Object.keys(invited.result).sort(), ['invitationId', 'tokenSha256'], 'the approver that ran it sees no token');
      const stored = async () => (await svc.service.store.getProposal(fixture.tenant.id, invited.id))!.result!;
      const first = (await owner.get(`/api/proposals/${invited.id}`)).json().result;
      assert.match(first.token, /^wai_/);
      noteCredential(first.token);
      assert.equal(first.url, new URL(`/console/invite#token=${first.token}`, svc.config.publicBaseUrl).href);
      assert.equal(first.tokenSha256, sha256(first.token));
      assert.equal(first.tokenSha256, invited.result.tokenSha256);
      // Shown once: not again, by any read, nor to anyone; the store keeps the hash alone.
      const again = (await owner.get(`/api/proposals/${invited.id}`)).json().result;
      const listed = (await owner.get('/api/proposals?limit=100')).json().items.find((p: { id: string }) => p.id === invited.id).result;
      const byAna = (await ana.api.get(`/api/proposals/${invited.id}`)).json().result;
      for (const shown of [again, listed, byAna, await stored()]) {
        assert.deepEqual(shown, { invitationId: first.invitationId, tokenSha256: first.tokenSha256 });
      }
      assert.ok(!JSON.stringify(await stored()).includes(first.token));
      // It is the invitation's own token.
      const joined = await request(svc.baseUrl, `/api/invitations/${first.token}/accept`, {
        method: 'POST',
        headers: await signIn(newWallet(), DOMAIN),
      });
      assert.equal(joined.status, 201, joined.body);

      // A row an earlier release wrote, with the token in clear: migration 021 keeps only its SHA-256.
      const oldToken = 'wai_kept-in-clear-by-an-earlier-release';
      const db = svc.config.databaseUrl
        ? await openPostgresDatabase(svc.config.databaseUrl, createLogger('error'))
        : await openSqliteDatabase(path.join(svc.config.dataDir, SQLITE_FILE_NAME));
      try {
        const back = await new Migrator({ db, provider: migrationProvider }).migrateTo('020-complete-history');
        assert.equal(back.error, undefined);
        const old = { invitationId: first.invitationId, token: oldToken };
        await db
          .updateTable('proposals')
          .set({ result: JSON.stringify(old) })
          .where('id', '=', invited.id)
          .execute();
        assert.deepEqual(
          await migrateToLatest(db, svc.config.databaseUrl ? 'postgres' : 'sqlite'),
          migrationNames.slice(migrationNames.indexOf('021-held-invitation-tokens')),
        );
      } finally {
        await db.destroy();
      }
      assert.deepEqual(await stored(), { invitationId: first.invitationId, tokenSha256: sha256(oldToken) });
      assert.deepEqual((await owner.get(`/api/proposals/${invited.id}`)).json().result, await stored(), 'nothing left to show');
    });

    test('a folder restore runs the approved plan; the log keeps the intents and verifies offline', async () => {
      assert.ok([200, 201].includes((await files.put('docs', 'a.txt', 'three')).status));
      const restored = await approvedByTwo(await owner.post(`${channel()}/folders/docs/restore?backupTimestamp=${backups[0]}`));
      assert.equal(restored.status, 'executed', JSON.stringify(restored));
      assert.equal((await files.get('docs', 'a.txt')).body, 'one');
      // The channel's log names who signed the restore's intents (the export holds what they signed).
      const logged = (await files.audit('?action=restore&limit=50'))
        .json()
        .items.find((e: { filename: string | null }) => e.filename === null);
      assert.equal(logged.intents.proposalId, restored.id);
      assert.deepEqual(logged.intents.approvals.map((a: { adminId: string }) => a.adminId).sort(), [fixture.owner.id, ana.id].sort());
      const exported = (await owner.get('/api/audit/export')).body.split('\n').filter((l) => l !== '');
      const summary = await verifyExport(exported);
      assert.equal(summary.ok, true, JSON.stringify(summary.failure));
      const withIntents = exported.map((l) => JSON.parse(l)).filter((e) => e.intents !== undefined);
      const restoreEvent = withIntents.find((e) => e.action === 'restore' && e.intents.proposalId === restored.id);
      assert.ok(restoreEvent, 'the restore entry keeps the intents that ran it');
      assert.equal(restoreEvent.intents.approvals.length, 2);
      assert.ok(summary.intents.verifiedSignatures >= 2 * withIntents.length);
      // Tampering with an intent breaks the export.
      const forged = exported.map((l) =>
        l.includes(restored.id) && l.includes('"restore"') ? l.replace(/"required":2/, '"required":1') : l,
      );
      assert.equal((await verifyExport(forged)).ok, false);
    });

    test('a proposal not approved before its deadline expires, and no intent revives it', async () => {
      await nextSecond();
      const fresh = (await files.backup()).json().timestamp;
      const asked = await owner.delete(`${channel()}/backups/${fresh}`);
      assert.equal(asked.status, 202, asked.body);
      const proposal = asked.json();
      shift += (PROPOSAL_SECONDS + 1) * 1000;
      const late = await ana.api.post(`/api/proposals/${proposal.id}/approvals`, await intentOf(ana.wallet, proposal.typedData));
      await assertProblem(late, 409, 'PROPOSAL_EXPIRED');
      assert.equal((await owner.get(`/api/proposals/${proposal.id}`)).json().status, 'expired');
      assert.equal((await owner.get('/api/proposals?status=expired')).json().items.length, 1);
    });
  });
}
