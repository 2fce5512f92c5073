import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AdminApi } from '../administration/admin-client.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

const DOMAIN = 'quorum.example.com';

/** Signs exactly the typed data a proposal publishes, as a wallet's eth_signTypedData_v4 does. */
async function intentOf(wallet: TestWallet, typedData: Record<string, any>): Promise<{ wallet: string; signature: string }> {
  const { domain, types, primaryType, message } = typedData;
  const { EIP712Domain: _domain, ...own } = types;
  const signature = await wallet.account.signTypedData({ domain, types: own, primaryType, message });
  return { wallet: wallet.address, signature };
}

/**
 * Quorum over HTTP on two instances sharing one database and one disk (docs/approvals.md): with a
 * 2-of-3 policy a channel restore is a proposal until two distinct eligible admins sign its intent,
 * then runs once; every forged, replayed, ineligible or stale intent is refused and changes nothing.
 */
for (const engine of ENGINES) {
  describe(`quorum: a 2-of-3 channel restore (${engine})`, () => {
    let storage: Storage;
    let a: TestService;
    let b: TestService;
    let fixture: TenantFixture;
    let owner: AdminApi;
    let files: FilesClient;
    const approvers: { id: string; wallet: TestWallet; api: AdminApi }[] = [];
    let backup: string;

    before(async () => {
      storage = await createStorage(engine);
      const env = { AUTH_DOMAINS: DOMAIN };
      a = await startTestService(engine, { storage, env });
      b = await startTestService(engine, { storage, env });
      fixture = await createTenantFixture(a.service.store);
      owner = new AdminApi(a.baseUrl, fixture.ownerWallet, DOMAIN);
      files = new FilesClient(a.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, DOMAIN)) });
      for (const name of ['Ana', 'Bo']) {
        const wallet = newWallet();
        const created = await owner.post('/api/admins', {
          displayName: name,
          wallet: wallet.address,
          permissions: ['files:read', 'files:restore'],
          channels: [fixture.channel.id],
        });
        assert.equal(created.status, 201, created.body);
        approvers.push({ id: created.json().id, wallet, api: new AdminApi(b.baseUrl, wallet, DOMAIN) });
      }
      const policy = await owner.send('PUT', '/api/policies', {
        rules: [{ operation: 'channel.restore', approvals: 2, permission: 'files:restore' }],
      });
      assert.equal(policy.status, 200, policy.body);
      assert.equal(policy.headers.etag, '"p1"');
    });
    after(async () => {
      await a.close();
      await b.close();
      await storage.drop();
    });

    const content = async (name: string) => {
      const got = await files.get('docs', name);
      return got.status === 200 ? got.body : null;
    };
    const restoreEvents = async () =>
      ((await files.audit('?action=restore&limit=1000')).json().items as { filename: string | null }[]).filter((e) => e.filename === null);

    /** docs/a.txt and docs/b.txt backed up, then a.txt changed and c.txt added: the restore replaces a and deletes c. */
    async function drift(tag: string): Promise<void> {
      assert.ok([200, 201].includes((await files.put('docs', 'a.txt', `a-${tag}-old`)).status));
      assert.ok([200, 201].includes((await files.put('docs', 'b.txt', 'b')).status));
      await files.delete('docs', 'c.txt');
      // A restore's safety backup may have taken the coming second already: the next free one then.
      let made = await files.backup();
      for (let tries = 0; made.status === 409 && tries < 5; tries++) {
        await nextSecond();
        made = await files.backup();
      }
      assert.equal(made.status, 201, made.body);
      backup = made.json().timestamp;
      assert.ok([200, 201].includes((await files.put('docs', 'a.txt', `a-${tag}-new`)).status));
      assert.ok([200, 201].includes((await files.put('docs', 'c.txt', 'c')).status));
    }

    async function propose(): Promise<Record<string, any>> {
      const held = await owner.post(`/api/channels/${fixture.channel.id}/restore?backupTimestamp=${backup}&delete=true`);
      assert.equal(held.status, 202, held.body);
      const proposal = held.json();
      assert.equal(held.headers.location, `/api/proposals/${proposal.id}`);
      return proposal;
    }

    const approve = (api: AdminApi, id: string, intent: { wallet: string; signature: string }) =>
      api.post(`/api/proposals/${id}/approvals`, intent);

    test('one intent: pending, nothing changed; the same admin again, or with its second wallet, does not count twice', async () => {
      await drift('1');
      const proposal = await propose();
      assert.equal(proposal.status, 'pending');
      assert.equal(proposal.operation, 'channel.restore');
      assert.equal(proposal.required, 2);
      assert.deepEqual(proposal.eligibleAdminIds.sort(), [fixture.owner.id, ...approvers.map((x) => x.id)].sort());
      assert.deepEqual(proposal.plan.changes, [
        { folder: 'docs', filename: 'a.txt', action: 'replace' },
        { folder: 'docs', filename: 'c.txt', action: 'delete' },
      ]);
      const message = proposal.typedData.message;
      assert.equal(message.operation, 'channel.restore');
      assert.equal(message.scope, 'channel');
      assert.equal(message.source, `backup:${backup}`);
      assert.equal(message.delete, true);
      assert.equal(message.planEtag, proposal.planEtag);
      assert.equal(message.admin, fixture.owner.id);
      assert.match(message.nonce, /^0x[0-9a-f]{64}$/);
      assert.equal(message.details.split('\n')[0], proposal.summary);

      const first = await approve(owner, proposal.id, await intentOf(fixture.ownerWallet, proposal.typedData));
      assert.equal(first.status, 200, first.body);
      assert.equal(first.json().status, 'pending');
      assert.equal(first.json().approvalsCounted, 1);
      // An approver without admins:read cannot list the admins, yet sees who proposed and who may approve.
      await assertProblem(await approvers[0]!.api.get('/api/admins'), 403, 'PERMISSION_DENIED');
      const seen = (await approvers[0]!.api.get(`/api/proposals/${proposal.id}`)).json();
      assert.deepEqual(seen.adminNames, {
        [fixture.owner.id]: fixture.owner.displayName,
        [approvers[0]!.id]: 'Ana',
        [approvers[1]!.id]: 'Bo',
      });
      assert.equal(await content('a.txt'), 'a-1-new');
      assert.equal(await content('c.txt'), 'c');
      assert.equal((await restoreEvents()).length, 0, 'no restore ran');

      const again = await approve(owner, proposal.id, await intentOf(fixture.ownerWallet, proposal.typedData));
      await assertProblem(again, 409, 'INTENT_ALREADY_GIVEN');
      const second = newWallet();
      assert.equal((await owner.addWallet(fixture.owner.id, second)).status, 201);
      await assertProblem(await approve(owner, proposal.id, await intentOf(second, proposal.typedData)), 409, 'INTENT_ALREADY_GIVEN');
      assert.equal((await owner.get(`/api/proposals/${proposal.id}`)).json().approvalsCounted, 1);
      // Withdrawn, so that the next tests start from the same files.
      assert.equal((await owner.delete(`/api/proposals/${proposal.id}`)).json().status, 'withdrawn');
    });

    test('forged, replayed, foreign and late intents are refused with their codes, and nothing runs', async () => {
      await drift('2');
      const proposal = await propose();
      const other = await propose();
      const [ana] = approvers;
      // Signed over other typed data: another plan, another proposal (a replay), a changed deadline.
      const otherPlan = { ...proposal.typedData, message: { ...proposal.typedData.message, planEtag: '"other"' } };
      await assertProblem(await approve(ana!.api, proposal.id, await intentOf(ana!.wallet, otherPlan)), 400, 'INTENT_SIGNATURE_INVALID');
      await assertProblem(
        await approve(ana!.api, proposal.id, await intentOf(ana!.wallet, other.typedData)),
        400,
        'INTENT_SIGNATURE_INVALID',
      );
      const later = {
        ...proposal.typedData,
        message: { ...proposal.typedData.message, deadline: proposal.typedData.message.deadline + 86400 },
      };
      await assertProblem(await approve(ana!.api, proposal.id, await intentOf(ana!.wallet, later)), 400, 'INTENT_SIGNATURE_INVALID');
      // A wallet signed for another: the signature is not the named wallet's.
      await assertProblem(
        await approve(ana!.api, proposal.id, {
          wallet: ana!.wallet.address,
          signature: (await intentOf(newWallet(), proposal.typedData)).signature,
        }),
        400,
        'INTENT_SIGNATURE_INVALID',
      );
      // A wallet that is no admin's.
      await assertProblem(
        await approve(ana!.api, proposal.id, await intentOf(newWallet(), proposal.typedData)),
        403,
        'INTENT_SIGNER_UNKNOWN',
      );
      // An admin created after the proposal, with the permission: an attacker cannot mint a second approver.
      const minted = newWallet();
      const created = await owner.post('/api/admins', {
        displayName: 'Minted',
        wallet: minted.address,
        permissions: ['files:read', 'files:restore'],
        channels: [fixture.channel.id],
      });
      assert.equal(created.status, 201, created.body);
      await assertProblem(await approve(owner, proposal.id, await intentOf(minted, proposal.typedData)), 403, 'INTENT_SIGNER_NOT_ELIGIBLE');
      const shown = (await owner.get(`/api/proposals/${proposal.id}`)).json();
      assert.equal(shown.status, 'pending');
      assert.equal(shown.approvals.length, 0);
      assert.equal(await content('a.txt'), 'a-2-new');
      // Withdrawn by a non-proposer: refused; by the proposer: done, and closed for good.
      await assertProblem(await ana!.api.delete(`/api/proposals/${other.id}`), 403, 'PROPOSER_ONLY');
      assert.equal((await owner.delete(`/api/proposals/${other.id}`)).status, 200);
      await assertProblem(await approve(ana!.api, other.id, await intentOf(ana!.wallet, other.typedData)), 409, 'PROPOSAL_CLOSED');
      assert.equal((await owner.delete(`/api/proposals/${proposal.id}`)).status, 200);
    });

    test('the plan changes between the intents: nothing runs, and the proposal says why', async () => {
      await drift('3');
      const proposal = await propose();
      const [ana, bo] = approvers;
      assert.equal((await approve(ana!.api, proposal.id, await intentOf(ana!.wallet, proposal.typedData))).json().status, 'pending');
      assert.ok([200, 201].includes((await files.put('docs', 'a.txt', 'a-3-newer')).status));
      const last = await approve(bo!.api, proposal.id, await intentOf(bo!.wallet, proposal.typedData));
      assert.equal(last.status, 200, last.body);
      assert.equal(last.json().status, 'invalidated');
      assert.match(last.json().reason, /plan changed/);
      assert.equal(await content('a.txt'), 'a-3-newer');
      assert.equal(await content('c.txt'), 'c');
      assert.equal((await restoreEvents()).length, 0);
    });

    test('a second distinct signer runs it once: 20 approvals at once across two instances', async () => {
      await drift('4');
      const proposal = await propose();
      const signers = [{ api: owner, wallet: fixture.ownerWallet }, ...approvers.map((x) => ({ api: x.api, wallet: x.wallet }))];
      const intents = await Promise.all(signers.map((s) => intentOf(s.wallet, proposal.typedData)));
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => approve(signers[i % 3]!.api, proposal.id, intents[i % 3]!)));
      const statuses = answers.map((r) => r.status);
      assert.ok(
        statuses.every((s) => [200, 409].includes(s)),
        statuses.join(','),
      );
      const final = (await owner.get(`/api/proposals/${proposal.id}`)).json();
      assert.equal(final.status, 'executed', JSON.stringify(final));
      assert.ok(final.approvalsCounted >= 2);
      assert.equal(await content('a.txt'), 'a-4-old');
      assert.equal(await content('c.txt'), null);
      const runs = await restoreEvents();
      assert.equal(runs.length, 1, 'exactly one restore ran');
      assert.ok(typeof final.result.safetyBackup === 'string');
      assert.deepEqual([final.result.replaced, final.result.deleted], [1, 1]);
      // Closed: an intent more is refused, and nothing runs again.
      await assertProblem(await approve(owner, proposal.id, intents[0]!), 409, 'PROPOSAL_CLOSED');
      assert.equal((await restoreEvents()).length, 1);
    });

    test("a suspended admin's intent stops counting, and counts again once reactivated", async () => {
      await drift('5');
      const proposal = await propose();
      const [ana, bo] = approvers;
      assert.equal((await approve(ana!.api, proposal.id, await intentOf(ana!.wallet, proposal.typedData))).json().approvalsCounted, 1);
      assert.equal((await owner.patch(`/api/admins/${ana!.id}`, { status: 'SUSPENDED' })).status, 200);
      const second = await approve(bo!.api, proposal.id, await intentOf(bo!.wallet, proposal.typedData));
      assert.equal(second.status, 200, second.body);
      assert.equal(second.json().status, 'pending', 'two intents given, one counts');
      assert.equal(second.json().approvalsCounted, 1);
      assert.equal(second.json().approvals.find((a: { adminId: string }) => a.adminId === ana!.id).counts, false);
      assert.equal(await content('a.txt'), 'a-5-new');
      assert.equal((await owner.patch(`/api/admins/${ana!.id}`, { status: 'ACTIVE' })).status, 200);
      const third = await approve(owner, proposal.id, await intentOf(fixture.ownerWallet, proposal.typedData));
      assert.equal(third.json().status, 'executed', third.body);
      assert.equal(await content('a.txt'), 'a-5-old');
    });

    test('dry runs and the contract single-file restore are never held', async () => {
      const dry = await owner.post(`/api/channels/${fixture.channel.id}/restore?backupTimestamp=${backup}&delete=true&dryRun=true`);
      assert.equal(dry.status, 200, dry.body);
      const single = await files.restore('docs', 'a.txt', `?backupTimestamp=${backup}`);
      assert.equal(single.status, 200, single.body);
      assert.equal(single.headers['content-type'], 'text/plain;charset=ISO-8859-1');
    });

    test('a policy guards its own change, and a rule nobody can meet is refused', async () => {
      const unsatisfiable = await owner.send('PUT', '/api/policies', {
        rules: [{ operation: 'channel.restore', approvals: 9, permission: 'files:restore' }],
      });
      await assertProblem(unsatisfiable, 409, 'POLICY_UNSATISFIABLE');
      const twice = await owner.send('PUT', '/api/policies', {
        rules: [
          { operation: 'channel.restore', approvals: 1, permission: 'files:restore' },
          { operation: 'channel.restore', approvals: 2, permission: 'files:restore' },
        ],
      });
      await assertProblem(twice, 400, 'VALIDATION_FAILED');
      const unknown = await owner.send('PUT', '/api/policies', {
        rules: [{ operation: 'channel.explode', approvals: 1, permission: 'files:restore' }],
      });
      assert.equal(unknown.status, 400);
      // Dropping the rule alone: held by the rule itself (2 of the admins with files:restore).
      const dropped = await owner.send('PUT', '/api/policies', { rules: [] });
      assert.equal(dropped.status, 202, dropped.body);
      assert.equal(dropped.json().operation, 'policy.change');
      assert.equal(dropped.json().required, 2);
      assert.equal((await owner.get('/api/policies')).json().rules.length, 1, 'the rule is still in force');
    });
  });
}
