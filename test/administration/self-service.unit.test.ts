import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { noteCredential } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';
import { AdminApi } from './admin-client.ts';

/**
 * The rules of tenant self-service (docs/administration.md), each over HTTP on both engines: what
 * is allowed works, and every escalation is refused with its code and changes nothing.
 */
for (const engine of ENGINES) {
  describe(`tenant self-service (${engine})`, () => {
    let svc: TestService;
    let home: TenantFixture;
    let domain: string;
    let owner: AdminApi;
    let stranger: AdminApi;
    const api = (wallet: TestWallet) => new AdminApi(svc.baseUrl, wallet, domain);

    before(async () => {
      svc = await startTestService(engine);
      domain = svc.config.auth.domains[0]!;
      home = await createTenantFixture(svc.service.store, 'Home');
      const other = await createTenantFixture(svc.service.store, 'Other');
      owner = api(home.ownerWallet);
      stranger = api(other.ownerWallet);
    });
    after(() => svc.close());

    /** A sub-admin made by `by` over the API: its id and its wallet's client. */
    async function subAdmin(by: AdminApi, permissions: string[], channels: string[] = [home.channel.id]) {
      const wallet = newWallet();
      const created = await by.post('/api/admins', { displayName: 'Sub', wallet: wallet.address, permissions, channels });
      assert.equal(created.status, 201, created.body);
      return { id: created.json().id as string, api: api(wallet), wallet };
    }

    const MANAGER = ['admins:read', 'admins:manage', 'files:read', 'channels:manage', 'audit:read'];

    test('an owner adds a sub-admin: the record has the principal members, wallets, createdAt and an ETag', async () => {
      const wallet = newWallet();
      const created = await owner.post('/api/admins', {
        displayName: 'Ada',
        wallet: wallet.address,
        permissions: ['files:read'],
        channels: ['main'],
      });
      assert.equal(created.status, 201, created.body);
      const admin = created.json();
      assert.deepEqual(Object.keys(admin).sort(), [
        'channelIds',
        'createdAt',
        'displayName',
        'effectiveFeatures',
        'effectivePermissions',
        'id',
        'ownerAdminId',
        'status',
        'tenantId',
        'type',
        'wallets',
      ]);
      assert.equal(admin.ownerAdminId, home.owner.id);
      assert.equal(admin.tenantId, home.tenant.id);
      assert.deepEqual(admin.channelIds, [home.channel.id]);
      assert.deepEqual(admin.effectivePermissions, ['files:read']);
      assert.deepEqual(admin.wallets, [wallet.address]);
      assert.match(created.headers.etag ?? '', /^"r\d+"$/);
      // It signs in at once, as that admin.
      const test = await request(svc.baseUrl, '/api/auth/test', { headers: await signIn(wallet, domain) });
      assert.equal(test.status, 200, test.body);
      assert.equal(test.json().principal.id, admin.id);
      // The owner reads it, and lists it with the filters.
      assert.equal((await owner.get(`/api/admins/${admin.id}`)).json().displayName, 'Ada');
      const listed = (await owner.get(`/api/admins?permission=files:read&status=ACTIVE&channel=main&limit=1000`)).json();
      assert.ok(listed.items.some((a: { id: string }) => a.id === admin.id));
      assert.ok(
        !(await owner.get('/api/admins?permission=files:write&limit=1000')).json().items.some((a: { id: string }) => a.id === admin.id),
      );
    });

    test('nobody grants what they do not hold, links a channel they are not linked to, or makes an owner unless an owner', async () => {
      const manager = await subAdmin(owner, MANAGER);
      const before = (await owner.get('/api/admins?limit=1000')).json().items.length;
      assertProblem(
        await manager.api.post('/api/admins', { displayName: 'X', wallet: newWallet().address, permissions: ['files:write'] }),
        403,
        'PERMISSION_NOT_HELD',
      );
      const extra = await svc.service.store.createChannel({ tenantId: home.tenant.id, name: `extra-${Date.now()}` });
      assertProblem(
        await manager.api.post('/api/admins', { displayName: 'X', wallet: newWallet().address, permissions: [], channels: [extra.id] }),
        404,
        'CHANNEL_NOT_FOUND',
      );
      assertProblem(
        await manager.api.post('/api/admins', { displayName: 'X', wallet: newWallet().address, permissions: [], owner: true }),
        403,
        'OWNER_REQUIRED',
      );
      assertProblem(
        await manager.api.post('/api/invitations', { permissions: ['files:restore'], expiresIn: 3600 }),
        403,
        'PERMISSION_NOT_HELD',
      );
      // Another tenant's channel is as unknown as a missing one.
      assertProblem(
        await owner.post('/api/admins', { displayName: 'X', wallet: newWallet().address, permissions: [], channels: ['chn_none'] }),
        404,
        'CHANNEL_NOT_FOUND',
      );
      assert.equal((await owner.get('/api/admins?limit=1000')).json().items.length, before, 'nothing was created');
      // Without admins:manage, nothing at all.
      const reader = await subAdmin(owner, ['admins:read']);
      assertProblem(
        await reader.api.post('/api/admins', { displayName: 'X', wallet: newWallet().address, permissions: [] }),
        403,
        'PERMISSION_DENIED',
      );
      const plain = await subAdmin(owner, []);
      assertProblem(await plain.api.get('/api/admins'), 403, 'PERMISSION_DENIED');
    });

    test('a sub-admin acts only below itself: never raises itself, never on a peer, its owner or another tenant', async () => {
      const manager = await subAdmin(owner, MANAGER);
      const peer = await subAdmin(owner, ['files:read']);
      const child = await subAdmin(manager.api, ['files:read']);
      assertProblem(
        await manager.api.patch(`/api/admins/${manager.id}`, { permissions: [...MANAGER, 'files:write'] }),
        403,
        'PERMISSION_NOT_HELD',
      );
      assertProblem(await manager.api.patch(`/api/admins/${manager.id}`, { ownerAdminId: null }), 400, 'VALIDATION_FAILED');
      assertProblem(await manager.api.patch(`/api/admins/${peer.id}`, { status: 'SUSPENDED' }), 403, 'ADMIN_OUT_OF_REACH');
      assertProblem(await manager.api.patch(`/api/admins/${home.owner.id}`, { status: 'SUSPENDED' }), 403, 'ADMIN_OUT_OF_REACH');
      assertProblem(await manager.api.delete(`/api/admins/${peer.id}`), 403, 'ADMIN_OUT_OF_REACH');
      assertProblem(await stranger.get(`/api/admins/${manager.id}`), 404, 'ADMIN_NOT_FOUND');
      assertProblem(await stranger.patch(`/api/admins/${manager.id}`, { status: 'SUSPENDED' }), 404, 'ADMIN_NOT_FOUND');
      // A sub-admin sees itself and those below it only.
      const seen = (await manager.api.get('/api/admins?limit=1000'))
        .json()
        .items.map((a: { id: string }) => a.id)
        .sort();
      assert.deepEqual(seen, [manager.id, child.id].sort());
      // Nothing changed.
      assert.equal((await owner.get(`/api/admins/${peer.id}`)).json().status, 'ACTIVE');
      assert.deepEqual((await owner.get(`/api/admins/${manager.id}`)).json().effectivePermissions, [...MANAGER].sort());
      // It may give up a permission of its own, and suspend the admin below it, whose requests then stop.
      assert.equal(
        (await manager.api.patch(`/api/admins/${manager.id}`, { permissions: MANAGER.filter((p) => p !== 'audit:read') })).status,
        200,
      );
      const suspended = await manager.api.patch(`/api/admins/${child.id}`, { status: 'SUSPENDED' });
      assert.equal(suspended.status, 200, suspended.body);
      assertProblem(await child.api.get(`/api/admins/${child.id}`), 403, 'ADMIN_SUSPENDED');
      assert.equal((await manager.api.patch(`/api/admins/${child.id}`, { status: 'ACTIVE' })).status, 200);
      assert.equal((await child.api.get(`/api/admins/${child.id}`)).status, 200);
    });

    test('a sub-admin does not manage an admin holding a permission it lacks', async () => {
      const manager = await subAdmin(owner, MANAGER);
      const child = await subAdmin(manager.api, ['files:read']);
      // The owner gives the child more than its manager holds: the manager can no longer touch it.
      assert.equal((await owner.patch(`/api/admins/${child.id}`, { permissions: ['files:read', 'files:write'] })).status, 200);
      assertProblem(await manager.api.patch(`/api/admins/${child.id}`, { status: 'SUSPENDED' }), 403, 'ADMIN_OUT_OF_REACH');
    });

    test('wallets: one admin may hold several, each proven by its signature; never another admin’s, never the last', async () => {
      const member = await subAdmin(owner, ['files:read']);
      const second = newWallet();
      const added = await member.api.addWallet(member.id, second);
      assert.equal(added.status, 201, added.body + svc.logs.filter((l) => l.includes('"level":50')).join('\n'));
      assert.equal(added.json().address, second.address);
      const asSecond = await request(svc.baseUrl, '/api/auth/test', { headers: await signIn(second, domain) });
      assert.equal(asSecond.json().principal.id, member.id, 'either wallet signs in as the same admin');
      assert.equal(
        (await svc.service.store.findAdminByWallet(second.address))?.id,
        member.id,
        'the store finds the admin by either wallet',
      );
      assertProblem(await owner.post('/api/admins', { displayName: 'Dup', wallet: second.address, permissions: [] }), 409, 'WALLET_TAKEN');
      assert.deepEqual(
        (await member.api.get(`/api/admins/${member.id}/wallets`)).json().items.map((w: { address: string }) => w.address),
        [member.wallet.address, second.address],
      );

      // Nobody adds their own wallet to someone more privileged; a wallet of another admin; a wallet without its signature.
      assertProblem(await member.api.addWallet(home.owner.id, newWallet()), 403, 'OWNER_REQUIRED');
      assertProblem(
        await member.api.post(`/api/admins/${member.id}/wallets/challenge`, { wallet: home.ownerWallet.address }),
        409,
        'WALLET_TAKEN',
      );
      assertProblem(await member.api.addWallet(member.id, newWallet(), newWallet()), 400, 'WALLET_PROOF_INVALID');
      const challenge = (
        await member.api.post(`/api/admins/${member.id}/wallets/challenge`, { wallet: (await (async () => newWallet())()).address })
      ).json();
      assertProblem(
        await member.api.post(`/api/admins/${member.id}/wallets`, { message: `${challenge.message} `, signature: '0x00' }),
        400,
        'WALLET_PROOF_INVALID',
      );
      // A proof is used once.
      const third = newWallet();
      const thirdChallenge = (await member.api.post(`/api/admins/${member.id}/wallets/challenge`, { wallet: third.address })).json();
      const signature = await third.account.signMessage({ message: thirdChallenge.message });
      assert.equal((await member.api.post(`/api/admins/${member.id}/wallets`, { message: thirdChallenge.message, signature })).status, 201);
      assertProblem(
        await member.api.post(`/api/admins/${member.id}/wallets`, { message: thirdChallenge.message, signature }),
        400,
        'WALLET_PROOF_INVALID',
      );

      // Removing a wallet ends its sessions; the last one stays.
      assert.equal((await member.api.delete(`/api/admins/${member.id}/wallets/${second.address}`)).status, 204);
      assertProblem(await request(svc.baseUrl, '/api/auth/test', { headers: await signIn(second, domain) }), 401, 'AUTH_UNKNOWN_WALLET');
      assert.equal((await member.api.delete(`/api/admins/${member.id}/wallets/${third.address}`)).status, 204);
      assertProblem(await member.api.delete(`/api/admins/${member.id}/wallets/${member.wallet.address}`), 409, 'LAST_WALLET');
      // An owner adds a wallet to anyone (with that wallet's signature).
      assert.equal((await owner.addWallet(member.id, newWallet())).status, 201);
    });

    test('the tenant keeps an active owner with a wallet; a second owner only from an owner', async () => {
      const fixture = await createTenantFixture(svc.service.store, 'Lonely');
      const sole = api(fixture.ownerWallet);
      assertProblem(await sole.patch(`/api/admins/${fixture.owner.id}`, { status: 'SUSPENDED' }), 409, 'LAST_OWNER');
      const secondWallet = newWallet();
      const second = await sole.post('/api/admins', {
        displayName: 'Co-owner',
        wallet: secondWallet.address,
        permissions: [],
        owner: true,
      });
      assert.equal(second.status, 201, second.body);
      assert.equal(second.json().ownerAdminId, 'N/A');
      // Two owners suspending each other at once: one wins, the tenant keeps an owner.
      const coOwner = api(secondWallet);
      const [a, b] = await Promise.all([
        sole.patch(`/api/admins/${second.json().id}`, { status: 'SUSPENDED' }),
        coOwner.patch(`/api/admins/${fixture.owner.id}`, { status: 'SUSPENDED' }),
      ]);
      const statuses = [a.status, b.status].sort();
      assert.ok(
        (statuses[0] === 200 && [403, 409].includes(statuses[1]!)) || statuses.join() === '200,200',
        `${a.status} ${a.body} / ${b.status} ${b.body}`,
      );
      const owners = (await svc.service.store.listAdmins(fixture.tenant.id)).filter(
        (x) => x.ownerAdminId === null && x.status === 'ACTIVE',
      );
      assert.ok(owners.length >= 1, 'an active owner is left');
    });

    test('removing an admin keeps its record, ends its sessions and moves those below it to the remover, audited', async () => {
      const manager = await subAdmin(owner, MANAGER);
      const child = await subAdmin(manager.api, ['files:read']);
      const removed = await owner.delete(`/api/admins/${manager.id}`);
      assert.equal(removed.status, 204, removed.body);
      const record = (await owner.get(`/api/admins/${manager.id}`)).json();
      assert.equal(record.status, 'REMOVED');
      assert.deepEqual(record.wallets, []);
      assertProblem(await manager.api.get('/api/admins'), 401, 'AUTH_UNKNOWN_WALLET');
      assert.equal((await owner.get(`/api/admins/${child.id}`)).json().ownerAdminId, home.owner.id);
      const audit = (await owner.get(`/api/audit?targetAdminId=${manager.id}&action=admin.remove`)).json();
      assert.equal(audit.items.length, 1);
      assert.equal(audit.items[0].change.before.status, 'ACTIVE');
      assert.equal(audit.items[0].change.after.status, 'REMOVED');
      assert.equal(audit.items[0].adminId, home.owner.id);
      // Its wallet may be given again.
      assert.equal((await owner.post('/api/admins', { displayName: 'Back', wallet: manager.wallet.address, permissions: [] })).status, 201);
    });

    test('an update with a stale If-Match changes nothing (412); unknown members are refused', async () => {
      const member = await subAdmin(owner, ['files:read']);
      const read = await owner.get(`/api/admins/${member.id}`);
      assert.equal(
        (await owner.patch(`/api/admins/${member.id}`, { displayName: 'First' }, { 'If-Match': read.headers.etag! })).status,
        200,
      );
      assertProblem(
        await owner.patch(`/api/admins/${member.id}`, { displayName: 'Second' }, { 'If-Match': read.headers.etag! }),
        412,
        'PRECONDITION_FAILED',
      );
      assert.equal((await owner.get(`/api/admins/${member.id}`)).json().displayName, 'First');
      assertProblem(
        await owner.post('/api/admins', { displayName: 'X', wallet: newWallet().address, permissions: [], role: 'god' }),
        400,
        'VALIDATION_FAILED',
      );
      assertProblem(await owner.patch(`/api/admins/${member.id}`, {}), 400, 'VALIDATION_FAILED');
    });

    test('invitations: accepted once by a wallet that is no admin, with exactly what was granted', async () => {
      const issued = await owner.post('/api/invitations', {
        permissions: ['files:read'],
        channels: ['main'],
        expiresIn: 3600,
        displayName: 'Guest',
      });
      assert.equal(issued.status, 201, issued.body);
      const { token, url } = issued.json();
      noteCredential(token);
      assert.equal(new URL(url).hash, `#token=${token}`, 'the token travels in the fragment');
      assert.equal(new URL(url).pathname, '/console/invite');
      // Before any wallet signs, the token alone shows who invites and what accepting grants; nothing changes.
      const preview = async (body: unknown) =>
        request(svc.baseUrl, '/api/invitations/preview', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      const previewed = await preview({ token });
      assert.equal(previewed.status, 200, previewed.body);
      assert.deepEqual(previewed.json(), {
        id: issued.json().id,
        tenant: { id: home.tenant.id, name: home.tenant.name },
        inviter: { id: home.owner.id, displayName: home.owner.displayName },
        displayName: 'Guest',
        wallet: null,
        permissions: ['files:read'],
        channels: [{ id: home.channel.id, name: 'main' }],
        owner: false,
        expiresAt: issued.json().expiresAt,
      });
      assertProblem(await preview({ token: 'wai_nothing' }), 404, 'INVITATION_NOT_FOUND');
      assertProblem(await preview({}), 400, 'VALIDATION_FAILED');
      assertProblem(await preview({ token, more: 1 }), 400, 'VALIDATION_FAILED');
      assert.equal(
        (await owner.get('/api/invitations')).json().items.find((i: { id: string }) => i.id === issued.json().id).state,
        'pending',
      );
      const invitee = newWallet();
      const accepted = await request(svc.baseUrl, `/api/invitations/${token}/accept`, {
        method: 'POST',
        headers: await signIn(invitee, domain),
      });
      assert.equal(accepted.status, 201, accepted.body);
      assert.equal(accepted.json().ownerAdminId, home.owner.id);
      assert.deepEqual(accepted.json().channelIds, [home.channel.id]);
      assert.deepEqual(accepted.json().effectivePermissions, ['files:read']);
      assert.equal(accepted.json().displayName, 'Guest');
      // Signed in at once.
      const test = await request(svc.baseUrl, '/api/auth/test', { headers: await signIn(invitee, domain) });
      assert.equal(test.json().principal.id, accepted.json().id);
      // Twice: no.
      assertProblem(
        await request(svc.baseUrl, `/api/invitations/${token}/accept`, { method: 'POST', headers: await signIn(newWallet(), domain) }),
        409,
        'INVITATION_USED',
      );
      assertProblem(
        await request(svc.baseUrl, `/api/invitations/wai_nothing/accept`, { method: 'POST', headers: await signIn(newWallet(), domain) }),
        404,
        'INVITATION_NOT_FOUND',
      );
      // Accepted: its preview says so, as its acceptance does.
      assertProblem(await preview({ token }), 409, 'INVITATION_USED');
      // The token is stored only hashed, never listed, and never in a log line.
      assert.ok(!(await owner.get('/api/invitations')).body.includes(token));
      assert.ok(!svc.logs.some((line) => line.includes(token)), 'the token reaches no log');
      const audit = (await owner.get(`/api/audit?action=invitation.accept&targetAdminId=${accepted.json().id}`)).json();
      assert.equal(audit.items.length, 1);
    });

    test('invitations: revoked, bound to another wallet, inviter narrowed or suspended since, an admin already — all refused', async () => {
      const accept = async (token: string, wallet = newWallet()) =>
        request(svc.baseUrl, `/api/invitations/${token}/accept`, { method: 'POST', headers: await signIn(wallet, domain) });
      const invite = async (by: AdminApi, body: object) => {
        const response = await by.post('/api/invitations', { permissions: ['files:read'], expiresIn: 3600, ...body });
        assert.equal(response.status, 201, response.body);
        noteCredential(response.json().token);
        return response.json() as { id: string; token: string };
      };
      const revoked = await invite(owner, {});
      assert.equal((await owner.delete(`/api/invitations/${revoked.id}`)).status, 204);
      assertProblem(await accept(revoked.token), 409, 'INVITATION_REVOKED');

      const bound = await invite(owner, { wallet: newWallet().address });
      assertProblem(await accept(bound.token), 403, 'INVITATION_WALLET_MISMATCH');

      const manager = await subAdmin(owner, MANAGER);
      const narrowed = await invite(manager.api, {});
      assert.equal(
        (await owner.patch(`/api/admins/${manager.id}`, { permissions: MANAGER.filter((p) => p !== 'files:read') })).status,
        200,
      );
      assertProblem(await accept(narrowed.token), 409, 'INVITER_NOT_ENTITLED');
      assert.equal((await owner.patch(`/api/admins/${manager.id}`, { permissions: MANAGER })).status, 200);
      const suspendedInviter = await invite(manager.api, {});
      assert.equal((await owner.patch(`/api/admins/${manager.id}`, { status: 'SUSPENDED' })).status, 200);
      assertProblem(await accept(suspendedInviter.token), 409, 'INVITER_NOT_ENTITLED');

      const forAdmin = await invite(owner, {});
      assertProblem(await accept(forAdmin.token, home.ownerWallet), 409, 'WALLET_TAKEN');
      assertProblem(await owner.post('/api/invitations', { permissions: [], expiresIn: 8 * 86400 }), 400, 'VALIDATION_FAILED');
    });

    test('two acceptances of one invitation at once: exactly one wins', async () => {
      const issued = (await owner.post('/api/invitations', { permissions: [], expiresIn: 3600 })).json();
      noteCredential(issued.token);
      const results = await Promise.all(
        [newWallet(), newWallet(), newWallet()].map(async (w) =>
          request(svc.baseUrl, `/api/invitations/${issued.token}/accept`, { method: 'POST', headers: await signIn(w, domain) }),
        ),
      );
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 409, 409], results.map((r) => r.body).join('\n'));
    });

    test('an expired invitation is refused by the store itself, whoever asks', async () => {
      const issued = (await owner.post('/api/invitations', { permissions: [], expiresIn: 60 })).json();
      noteCredential(issued.token);
      const store = svc.service.store;
      const invitation = (await store.getInvitation(issued.id))!;
      await assert.rejects(
        store.acceptInvitation(issued.id, { wallet: newWallet().address, displayName: 'Late', at: invitation.expiresAt }),
        {
          code: 'INVITATION_EXPIRED',
        },
      );
      assert.equal((await store.getInvitation(issued.id))!.acceptedAt, null);
    });

    test('channels: created by channels:manage and linked to their maker; archived is read-only; links by admins:manage', async () => {
      const manager = await subAdmin(owner, MANAGER);
      const created = await manager.api.post('/api/channels', { name: `ops-${engine}` });
      assert.equal(created.status, 201, created.body);
      const channel = created.json();
      assert.equal(channel.archived, false);
      assertProblem(await manager.api.post('/api/channels', { name: 'chn_lookalike' }), 400, 'VALIDATION_FAILED');
      assertProblem(await manager.api.post('/api/channels', { name: `ops-${engine}` }), 409, 'CHANNEL_NAME_TAKEN');
      // The maker uses it at once.
      const file = `/api/channels/${channel.id}/folders/docs/files/a.txt`;
      const writer = await subAdmin(owner, ['files:read', 'files:write'], []);
      assert.equal(
        (await manager.api.put(`/api/channels/${channel.id}/admins/${writer.id}`)).status,
        403,
        'the writer holds files:write, which the manager lacks',
      );
      assert.equal((await owner.put(`/api/channels/${channel.id}/admins/${writer.id}`)).status, 204);
      const put = await request(svc.baseUrl, file, {
        method: 'PUT',
        headers: { ...(await signIn(writer.wallet, domain)), 'Content-Type': 'text/plain' },
        body: 'v1',
      });
      assert.equal(put.status, 201, put.body);
      assert.equal(
        (await manager.api.patch(`/api/channels/${channel.id}`, { archived: true, name: `ops-${engine}-old` })).json().archived,
        true,
      );
      const refused = await request(svc.baseUrl, file, {
        method: 'PUT',
        headers: { ...(await signIn(writer.wallet, domain)), 'Content-Type': 'text/plain' },
        body: 'v2',
      });
      assertProblem(refused, 409, 'CHANNEL_ARCHIVED');
      assertProblem(
        await request(svc.baseUrl, file, { method: 'DELETE', headers: await signIn(writer.wallet, domain) }),
        409,
        'CHANNEL_ARCHIVED',
      );
      const read = await request(svc.baseUrl, file, { headers: await signIn(writer.wallet, domain) });
      assert.equal(read.body, 'v1', 'an archived channel is still read');
      assert.equal((await manager.api.patch(`/api/channels/${channel.id}`, { archived: false })).status, 200);
      const again = await request(svc.baseUrl, file, {
        method: 'PUT',
        headers: { ...(await signIn(writer.wallet, domain)), 'Content-Type': 'text/plain' },
        body: 'v2',
      });
      assert.equal(again.status, 200, again.body);
      const admins = (await owner.get(`/api/channels/${channel.id}/admins`))
        .json()
        .items.map((a: { id: string }) => a.id)
        .sort();
      assert.deepEqual(admins, [manager.id, writer.id].sort());
      assert.equal((await owner.delete(`/api/channels/${channel.id}/admins/${writer.id}`)).status, 204);
      assertProblem(await request(svc.baseUrl, file, { headers: await signIn(writer.wallet, domain) }), 404, 'CHANNEL_NOT_FOUND');
      assertProblem(await stranger.patch(`/api/channels/${channel.id}`, { archived: true }), 404, 'CHANNEL_NOT_FOUND');
    });

    test("the tenant's audit log: owners see every event, a sub-admin its channels' and those below it", async () => {
      const manager = await subAdmin(owner, MANAGER);
      const child = await subAdmin(manager.api, ['files:read']);
      const peer = await subAdmin(owner, ['files:read'], []);
      const mine = (await manager.api.get('/api/audit?limit=1000')).json().items;
      assert.ok(mine.some((e: { targetAdminId: string }) => e.targetAdminId === child.id));
      assert.ok(
        !mine.some((e: { targetAdminId: string }) => e.targetAdminId === peer.id),
        "a peer's events are not the sub-admin's to see",
      );
      const all = (await owner.get('/api/audit?action=admin.create&limit=1000')).json().items;
      assert.ok(all.some((e: { targetAdminId: string }) => e.targetAdminId === peer.id));
      assert.ok(all.every((e: { action: string }) => e.action === 'admin.create'));
      const created = all.find((e: { targetAdminId: string }) => e.targetAdminId === child.id);
      assert.equal(created.adminId, manager.id);
      assert.equal(created.change.before, null);
      assert.deepEqual(created.change.after.permissions, ['files:read']);
      assertProblem(await child.api.get('/api/audit'), 403, 'PERMISSION_DENIED');
    });
  });
}
