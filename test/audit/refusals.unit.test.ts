import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { RefusalAllowance } from '../../src/administration/refusal-allowance.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet } from '../helpers/wallets.ts';

/**
 * Administration, policy and proposal refusals are in the tenant's log (docs/audit-chain.md), at
 * most a burst of 10 and then 10 a minute per admin, so that a script repeating a refused request
 * cannot flood the chain; the next refusal recorded says how many were not.
 */
describe('refusals of administration in the log', () => {
  let svc: TestService;
  let home: TenantFixture;
  let owner: AdminApi;
  let sub: { id: string; api: AdminApi };

  before(async () => {
    svc = await startTestService('sqlite');
    const domain = svc.config.auth.domains[0]!;
    home = await createTenantFixture(svc.service.store, 'Refusals');
    owner = new AdminApi(svc.baseUrl, home.ownerWallet, domain);
    const wallet = newWallet();
    const created = await owner.post('/api/admins', {
      displayName: 'Sub',
      wallet: wallet.address,
      permissions: ['files:read', 'admins:read'],
      channels: [home.channel.id],
    });
    assert.equal(created.status, 201, created.body);
    sub = { id: created.json().id, api: new AdminApi(svc.baseUrl, wallet, domain) };
  });
  after(() => svc.close());

  const refusalsBy = async (adminId: string) =>
    (await owner.get(`/api/audit?adminId=${adminId}&result=refused&limit=100`)).json().items as {
      action: string;
      code: string;
      targetAdminId: string | null;
      channelId: string | null;
      change: { after: { refusalsNotRecorded?: number } } | null;
    }[];

  test("a sub-admin's refused changes are recorded with what, on whom, and why; its successes too", async () => {
    const asks = [
      [() => sub.api.patch(`/api/admins/${home.owner.id}`, { displayName: 'Mine now' }), 404, 'admin.update', 'ADMIN_NOT_FOUND'],
      [
        () => sub.api.post('/api/admins', { displayName: 'X', wallet: newWallet().address, permissions: [] }),
        403,
        'admin.create',
        'PERMISSION_DENIED',
      ],
      [() => sub.api.send('PUT', '/api/policies', { rules: [] }), 403, 'policy.change', 'OWNER_REQUIRED'],
      [() => sub.api.post('/api/channels', { name: 'mine' }), 403, 'channel.create', 'PERMISSION_DENIED'],
      [() => sub.api.delete('/api/proposals/prp_nothere'), 404, 'proposal.withdraw', 'PROPOSAL_NOT_FOUND'],
    ] as const;
    for (const [ask, status, _action, code] of asks) {
      const answer = await ask();
      assert.equal(answer.status, status, answer.body);
      assert.equal(answer.json().code, code);
    }
    const recorded = await refusalsBy(sub.id);
    assert.deepEqual(
      recorded.map((e) => [e.action, e.code]).reverse(),
      asks.map(([, , action, code]) => [action, code]),
    );
    assert.equal(recorded.at(-1)!.targetAdminId, home.owner.id, 'the admin it tried to change');
    // Its own change, allowed, is the change's own entry (result ok), not a refusal.
    assert.equal((await sub.api.patch(`/api/admins/${sub.id}`, { displayName: 'Sub renamed' })).status, 200);
    assert.equal((await refusalsBy(sub.id)).length, asks.length);
  });

  test('a flood of refusals: a burst is recorded, the rest counted, and said by the next one recorded', async () => {
    const flooder = new AdminApi(svc.baseUrl, newWallet(), svc.config.auth.domains[0]!);
    const wallet = flooder.wallet;
    const created = await owner.post('/api/admins', { displayName: 'Flood', wallet: wallet.address, permissions: ['files:read'] });
    assert.equal(created.status, 201, created.body);
    for (let i = 0; i < 25; i++) assert.equal((await flooder.post('/api/channels', { name: `c${i}` })).status, 403);
    const recorded = await refusalsBy(created.json().id);
    // 10 at once; on a slow machine a second or two of refill may add one or two more, never 25.
    assert.ok(recorded.length >= 10 && recorded.length <= 13, `${recorded.length} of 25 recorded`);
  });

  test('the allowance: 10 at once, then one every 6 s, and the next recorded says how many were not', () => {
    let now = 1_000_000;
    const allowance = new RefusalAllowance(() => now);
    const taken = Array.from({ length: 14 }, () => allowance.take('adm_a'));
    assert.equal(taken.filter((t) => t !== undefined).length, 10);
    assert.deepEqual(taken[0], { notRecorded: 0 });
    assert.equal(allowance.take('adm_b')?.notRecorded, 0, 'per admin');
    now += 5_999;
    assert.equal(allowance.take('adm_a'), undefined);
    now += 1;
    assert.deepEqual(allowance.take('adm_a'), { notRecorded: 5 });
    assert.equal(allowance.take('adm_a'), undefined);
  });
});
