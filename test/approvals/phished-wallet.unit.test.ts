import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verifyExport } from '../../src/audit-chain/verify-export.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

const DOMAIN = 'phished.example.com';
const DAY = 86_400_000;

async function intentOf(wallet: TestWallet, typedData: Record<string, any>) {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return { wallet: wallet.address, signature: await wallet.account.signTypedData({ ...typedData, types } as never) };
}

/**
 * The story the policies exist for (docs/approvals.md, "Threat model"): an owner's wallet is
 * phished. Under a 2-of-3 policy, everything the attacker's signed-in session tries that would
 * destroy history or mint a second approver becomes a proposal its own intent cannot run; what
 * the cap refuses is refused outright; and at the end nothing is lost, and the log verifies.
 */
for (const engine of ENGINES) {
  describe(`a phished owner wallet under a 2-of-3 policy (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let attacker: AdminApi;
    let files: FilesClient;
    const backups: string[] = [];
    const GUARDED = ['files:read', 'files:restore', 'backups:create', 'backups:delete', 'backups:lock', 'admins:read', 'admins:manage'];

    before(async () => {
      svc = await startTestService(engine, { env: { AUTH_DOMAINS: DOMAIN } });
      fixture = await createTenantFixture(svc.service.store);
      attacker = new AdminApi(svc.baseUrl, fixture.ownerWallet, DOMAIN);
      files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, DOMAIN)) });
      // Before the theft: two colleagues, the policy, two backups of the files.
      for (const name of ['Ana', 'Bo']) {
        const made = await attacker.post('/api/admins', {
          displayName: name,
          wallet: newWallet().address,
          permissions: GUARDED,
          channels: [fixture.channel.id],
        });
        assert.equal(made.status, 201, made.body);
      }
      const rule = (operation: string, permission: string) => ({ operation, approvals: 2, permission });
      const policy = await attacker.send('PUT', '/api/policies', {
        rules: [
          rule('channel.restore', 'files:restore'),
          rule('folder.restore', 'files:restore'),
          rule('backup.delete', 'backups:delete'),
          rule('backup.lock', 'backups:lock'),
          rule('invitation.create', 'admins:manage'),
          rule('admin.create', 'admins:manage'),
          rule('admin.change', 'admins:manage'),
          rule('admin.remove', 'admins:manage'),
          rule('wallet.add', 'admins:manage'),
        ],
      });
      assert.equal(policy.status, 200, policy.body);
      for (const version of ['one', 'two']) {
        assert.ok([200, 201].includes((await files.put('docs', 'report.txt', `report ${version}`)).status));
        assert.ok([200, 201].includes((await files.put('docs', `notes-${version}.txt`, version)).status));
        await nextSecond();
        const made = await files.backup();
        assert.equal(made.status, 201, made.body);
        backups.push(made.json().timestamp);
      }
    });
    after(() => svc.close());

    /** Everything an attacker could destroy, as it stands. */
    async function state() {
      const listed = (await files.list('docs')).json().items.map((f: { filename: string; sha256: string }) => `${f.filename}:${f.sha256}`);
      const kept = (await files.backups())
        .json()
        .items.map((b: { timestamp: string; lock: unknown }) => JSON.stringify([b.timestamp, b.lock]));
      const admins = (await attacker.get('/api/admins'))
        .json()
        .items.map((a: { id: string; status: string; permissions: string[] }) => JSON.stringify([a.id, a.status, a.permissions]));
      const invitations = (await attacker.get('/api/invitations')).json().items.length;
      const policy = (await attacker.get('/api/policies')).json().rules;
      return { listed, kept, admins, invitations, policy };
    }

    test('every destructive request becomes a proposal its own intent cannot run, and nothing is lost', async () => {
      const untouched = await state();
      const proposals: Record<string, any>[] = [];
      const held = async (answer: { status: number; body: string; json(): any }) => {
        assert.equal(answer.status, 202, answer.body);
        proposals.push(answer.json());
      };
      const channel = `/api/channels/${fixture.channel.id}`;

      // A channel restore with delete, back to the oldest backup.
      await held(await attacker.post(`${channel}/restore?backupTimestamp=${backups[0]}&delete=true`));
      // A second wallet of its own, by invitation and by a new admin, and on its own record.
      const second = newWallet();
      await held(await attacker.post('/api/invitations', { permissions: GUARDED, expiresIn: 3600, wallet: second.address }));
      await held(
        await attacker.post('/api/admins', { displayName: 'Backup key', wallet: second.address, permissions: GUARDED, owner: true }),
      );
      await held(await attacker.addWallet(fixture.owner.id, second));
      // Its colleagues out of the way.
      const colleagues = (await attacker.get('/api/admins')).json().items.filter((a: { id: string }) => a.id !== fixture.owner.id);
      await held(await attacker.patch(`/api/admins/${colleagues[0].id}`, { status: 'SUSPENDED' }));
      await held(await attacker.delete(`/api/admins/${colleagues[1].id}`));
      // Every backup locked for a century: beyond BACKUP_LOCK_MAX_DAYS, refused outright.
      const century = new Date(Date.now() + 36_500 * DAY).toISOString();
      for (const timestamp of backups) {
        const pinned = await attacker.send('PUT', `${channel}/backups/${timestamp}/lock`, { mode: 'compliance', until: century });
        await assertProblem(pinned, 400, 'LOCK_TOO_LONG');
      }
      // Within the cap: held.
      const year = new Date(Date.now() + 300 * DAY).toISOString();
      await held(await attacker.send('PUT', `${channel}/backups/${backups[0]}/lock`, { mode: 'compliance', until: year }));
      // Every backup deleted.
      for (const timestamp of backups) await held(await attacker.delete(`${channel}/backups/${timestamp}`));
      // And the policy dropped, which the policy itself holds.
      await held(await attacker.send('PUT', '/api/policies', { rules: [] }));

      // Its own intent on every one: each stays pending, one of two.
      for (const proposal of proposals) {
        const approved = await attacker.post(
          `/api/proposals/${proposal.id}/approvals`,
          await intentOf(fixture.ownerWallet, proposal.typedData),
        );
        assert.equal(approved.status, 200, approved.body);
        assert.equal(approved.json().status, 'pending', `${proposal.operation} ran on one intent`);
        // The second wallet it tried to add is no admin's: its intent counts for nobody.
        await assertProblem(
          await attacker.post(`/api/proposals/${proposal.id}/approvals`, await intentOf(second, proposal.typedData)),
          403,
          'INTENT_SIGNER_UNKNOWN',
        );
      }
      assert.deepEqual(proposals.map((p) => p.operation).sort(), [
        'admin.change',
        'admin.create',
        'admin.remove',
        'backup.delete',
        'backup.delete',
        'backup.lock',
        'channel.restore',
        'invitation.create',
        'policy.change',
        'wallet.add',
      ]);
      assert.deepEqual(await state(), untouched, 'no file, backup, lock, admin, invitation or rule changed');

      // The log shows all of it and verifies offline.
      const exported = await attacker.get('/api/audit/export');
      assert.equal(exported.status, 200, exported.body);
      const summary = await verifyExport(exported.body.split('\n').filter((l) => l !== ''));
      assert.equal(summary.ok, true, JSON.stringify(summary.failure));
      const created = exported.body.split('\n').filter((l) => l.includes('"proposal.create"'));
      assert.equal(created.length, proposals.length);
    });
  });
}
