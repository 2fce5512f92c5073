import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { formatSiweMessage } from '../../src/auth/siwe/siwe-message.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { noteCredential } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { base64Header, newWallet, signIn, signTypedData, type TestWallet } from '../helpers/wallets.ts';
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
      // A peer and the owner are admins it may not see: not found, as an unknown id.
      assertProblem(await manager.api.patch(`/api/admins/${peer.id}`, { status: 'SUSPENDED' }), 404, 'ADMIN_NOT_FOUND');
      assertProblem(await manager.api.patch(`/api/admins/${home.owner.id}`, { status: 'SUSPENDED' }), 404, 'ADMIN_NOT_FOUND');
      assertProblem(await manager.api.delete(`/api/admins/${peer.id}`), 404, 'ADMIN_NOT_FOUND');
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

    test('an admin a sub-admin may not see is answered as an unknown id, on every admin route: the same 404, nothing changed', async () => {
      const manager = await subAdmin(owner, MANAGER);
      const peer = await subAdmin(owner, ['files:read']);
      const unknown = 'adm_00000000000000000000000000';
      // A well-formed proof (the manager's own challenge): the target is looked up before any proof is.
      const { typedData } = (await manager.api.post(`/api/admins/${manager.id}/wallets/challenge`, { wallet: newWallet().address })).json();
      const routes: [method: string, path: (id: string) => string, body?: object][] = [
        ['GET', (id) => `/api/admins/${id}`],
        ['PATCH', (id) => `/api/admins/${id}`, { permissions: ['files:read'] }],
        ['PATCH', (id) => `/api/admins/${id}`, { status: 'SUSPENDED' }],
        ['PATCH', (id) => `/api/admins/${id}`, { displayName: 'Renamed' }],
        ['DELETE', (id) => `/api/admins/${id}`],
        ['GET', (id) => `/api/admins/${id}/wallets`],
        ['POST', (id) => `/api/admins/${id}/wallets/challenge`, { wallet: newWallet().address }],
        ['POST', (id) => `/api/admins/${id}/wallets`, { typedData, signature: '0x00' }],
        ['DELETE', (id) => `/api/admins/${id}/wallets/${home.ownerWallet.address}`],
        ['PUT', (id) => `/api/channels/${home.channel.id}/admins/${id}`],
        ['DELETE', (id) => `/api/channels/${home.channel.id}/admins/${id}`],
      ];
      const before = (await owner.get('/api/admins?limit=1000')).body;
      for (const [method, path, body] of routes) {
        const refusal = async (id: string) => {
          const answer = await manager.api.send(method, path(id), body);
          const { instance: _instance, requestId: _requestId, ...problem } = answer.json();
          return { status: answer.status, ...problem, detail: String(problem.detail).replaceAll(id, '<id>') };
        };
        const asUnknown = await refusal(unknown);
        assert.equal(asUnknown.code, 'ADMIN_NOT_FOUND', `${method} ${path(unknown)}: ${JSON.stringify(asUnknown)}`);
        for (const hidden of [home.owner.id, peer.id]) assert.deepEqual(await refusal(hidden), asUnknown, `${method} ${path(hidden)}`);
      }
      assert.equal((await owner.get('/api/admins?limit=1000')).body, before, 'nothing changed');
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

      // Nobody adds their own wallet to someone more privileged (the owner, which a sub-admin may not even see); a wallet of
      // another admin; a wallet without its signature.
      assertProblem(await member.api.addWallet(home.owner.id, newWallet()), 404, 'ADMIN_NOT_FOUND');
      assertProblem(
        await member.api.post(`/api/admins/${member.id}/wallets/challenge`, { wallet: home.ownerWallet.address }),
        409,
        'WALLET_TAKEN',
      );
      assertProblem(await member.api.addWallet(member.id, newWallet(), newWallet()), 400, 'WALLET_PROOF_INVALID');
      const challenge = (await member.api.post(`/api/admins/${member.id}/wallets/challenge`, { wallet: newWallet().address })).json();
      const changed = { ...challenge.typedData, message: { ...challenge.typedData.message, admin: home.owner.id } };
      assertProblem(
        await member.api.post(`/api/admins/${member.id}/wallets`, { typedData: changed, signature: '0x00' }),
        400,
        'WALLET_PROOF_INVALID',
      );
      // A proof is used once.
      const third = newWallet();
      const thirdChallenge = (await member.api.post(`/api/admins/${member.id}/wallets/challenge`, { wallet: third.address })).json();
      const proof = { typedData: thirdChallenge.typedData, signature: await signTypedData(third, thirdChallenge.typedData) };
      assert.equal((await member.api.post(`/api/admins/${member.id}/wallets`, proof)).status, 201);
      assertProblem(await member.api.post(`/api/admins/${member.id}/wallets`, proof), 400, 'WALLET_PROOF_INVALID');

      // Removing a wallet ends its sessions; the last one stays.
      assert.equal((await member.api.delete(`/api/admins/${member.id}/wallets/${second.address}`)).status, 204);
      assertProblem(await request(svc.baseUrl, '/api/auth/test', { headers: await signIn(second, domain) }), 401, 'AUTH_UNKNOWN_WALLET');
      assert.equal((await member.api.delete(`/api/admins/${member.id}/wallets/${third.address}`)).status, 204);
      assertProblem(await member.api.delete(`/api/admins/${member.id}/wallets/${member.wallet.address}`), 409, 'LAST_WALLET');
      // An owner adds a wallet to anyone (with that wallet's signature).
      assert.equal((await owner.addWallet(member.id, newWallet())).status, 201);
    });

    test('a wallet proof is never a sign-in: its typed data signs nobody in, and a proof in the old EIP-4361 form is refused by both', async () => {
      const member = await subAdmin(owner, ['files:read']);
      // An owner relays a colleague's proof: it sees the typed data and the signature.
      const relayed = newWallet();
      const challenge = (await owner.post(`/api/admins/${member.id}/wallets/challenge`, { wallet: relayed.address })).json();
      assert.equal(challenge.typedData.primaryType, 'AddWallet');
      assert.equal(challenge.typedData.domain.name, 'wallet-admin wallet proof');
      const signature = await signTypedData(relayed, challenge.typedData);
      assert.equal((await owner.post(`/api/admins/${member.id}/wallets`, { typedData: challenge.typedData, signature })).status, 201);
      // The wallet is the member's now; the relayed proof, sent as a sign-in in any form, signs nobody in.
      for (const mes of [JSON.stringify(challenge.typedData), base64Header(JSON.stringify(challenge.typedData, null, 2))]) {
        noteCredential(signature);
        const relay = await request(svc.baseUrl, '/api/auth/test', {
          headers: { 'X-WAL': relayed.address, 'X-SIG': signature, 'X-MES': mes },
        });
        assert.equal(relay.status, 401, relay.body);
      }

      // A proof in the form of earlier releases, still open in the database: an EIP-4361 message the new wallet signed.
      const oldProof = async (wallet: TestWallet) => {
        const issued = Date.now();
        const message = formatSiweMessage({
          domain,
          address: wallet.address,
          statement:
            `Add this wallet to the admin ${member.id} of tenant ${home.tenant.id}. ` +
            'Once added, it signs in as that admin, with everything that admin may do. Sign only if you asked for this.',
          uri: svc.config.publicBaseUrl,
          version: '1',
          chainId: 1,
          nonce: 'a1b2c3d4e5f6a7b8c9d0e1f2',
          issuedAt: new Date(issued).toISOString(),
          expirationTime: new Date(issued + 600_000).toISOString(),
          resources: [`urn:wallet-admin:add-wallet:${member.id}`],
        });
        const messageHash = createHash('sha256').update(message, 'utf8').digest('hex');
        await svc.service.store.saveWalletChallenge({
          messageHash,
          adminId: member.id,
          wallet: wallet.address,
          chainId: 1,
          expiresAt: issued + 600_000,
        });
        return { message, signature: await wallet.account.signMessage({ message }) };
      };
      // Signed by a wallet that is an admin's: it does not sign in.
      const old = await oldProof(relayed);
      noteCredential(old.signature);
      const oldSignIn = await request(svc.baseUrl, '/api/auth/test', {
        headers: { 'X-WAL': relayed.address, 'X-SIG': old.signature, 'X-MES': base64Header(old.message) },
      });
      assertProblem(oldSignIn, 401, 'AUTH_MESSAGE_REFUSED');
      assert.match(oldSignIn.json().detail, /wallet proof/);
      // Sent as a proof, it is refused saying what to sign instead, and adds nothing.
      const another = newWallet();
      const refused = await member.api.post(`/api/admins/${member.id}/wallets`, await oldProof(another));
      assertProblem(refused, 400, 'WALLET_PROOF_INVALID');
      assert.match(refused.json().detail, /typedData/);
      assert.match(refused.json().detail, /eth_signTypedData_v4/);
      assert.deepEqual(
        (await member.api.get(`/api/admins/${member.id}/wallets`)).json().items.map((w: { address: string }) => w.address),
        [member.wallet.address, relayed.address],
      );
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

    test("a refused acceptance carries no token: the problem's instance redacts it, as the request log does", async () => {
      const issued = await owner.post('/api/invitations', { permissions: ['files:read'], expiresIn: 3600 });
      const { token } = issued.json();
      noteCredential(token);
      const accepted = await request(svc.baseUrl, `/api/invitations/${token}/accept`, {
        method: 'POST',
        headers: await signIn(newWallet(), domain),
      });
      assert.equal(accepted.status, 201, accepted.body);
      const json = { 'Content-Type': 'application/json' };
      const refusals = [
        // Used already; not one; no signature; a body it does not take; a method it does not answer.
        [409, 'POST', `/api/invitations/${token}/accept`, await signIn(newWallet(), domain)],
        [404, 'POST', '/api/invitations/wai_never_issued_0123456789/accept', await signIn(newWallet(), domain)],
        [401, 'POST', `/api/invitations/${token}/accept`, {}],
        [400, 'POST', `/api/invitations/${token}/accept`, { ...(await signIn(newWallet(), domain)), ...json }, '{"displayName":7}'],
        [404, 'GET', `/api/invitations/${token}/accept`, {}],
      ] as const;
      for (const [status, method, path, headers, body] of refusals) {
        const answer = await request(svc.baseUrl, path, { method, headers, body });
        assert.equal(answer.status, status, `${method} ${path}: ${answer.body}`);
        assert.equal(answer.json().instance, '/api/invitations/[redacted]/accept', answer.body);
        assert.ok(!answer.body.includes(token), `${method}: the answer carries no token: ${answer.body}`);
      }
      assert.ok(!svc.logs.some((line) => line.includes(token)), 'no log line carries the token');
      assert.ok(
        svc.logs.some((line) => line.includes('/api/invitations/[redacted]/accept')),
        'the request log names the path, redacted',
      );
    });

    test("invitations: a display name, the invitation's or the one given when accepting, follows the one name rule", async () => {
      const hidden = ['Mallory\u202Egnp.exe', 'Eve\u001b[2J', 'Bob\u0007', 'Tab\tname', 'Zero\u200Bwidth', 'Line\nbreak'];
      const listed = async () => (await owner.get('/api/invitations?limit=100')).json().items.length;
      const count = await listed();
      for (const displayName of hidden) {
        const refused = await owner.post('/api/invitations', { permissions: ['files:read'], expiresIn: 3600, displayName });
        assertProblem(refused, 400, 'VALIDATION_FAILED');
        assert.match(refused.json().detail, /^Display name must not contain/, JSON.stringify(displayName));
      }
      assert.equal(await listed(), count, 'no invitation was made');

      const issued = await owner.post('/api/invitations', { permissions: ['files:read'], expiresIn: 3600, displayName: 'Guest' });
      assert.equal(issued.status, 201, issued.body);
      const { token, id } = issued.json();
      noteCredential(token);
      const invitee = newWallet();
      for (const displayName of hidden) {
        const refused = await request(svc.baseUrl, `/api/invitations/${token}/accept`, {
          method: 'POST',
          headers: { ...(await signIn(invitee, domain)), 'Content-Type': 'application/json' },
          body: JSON.stringify({ displayName }),
        });
        assertProblem(refused, 400, 'VALIDATION_FAILED');
        assert.match(refused.json().detail, /^Display name must not contain/, JSON.stringify(displayName));
      }
      // Still pending, and the wallet no admin's: a name the rule allows then joins.
      const invitation = (await owner.get('/api/invitations?limit=100')).json().items.find((i: { id: string }) => i.id === id);
      assert.equal(invitation.state, 'pending');
      assert.equal(await svc.service.store.findAdminByWallet(invitee.address), undefined);
      const accepted = await request(svc.baseUrl, `/api/invitations/${token}/accept`, {
        method: 'POST',
        headers: { ...(await signIn(invitee, domain)), 'Content-Type': 'application/json' },
        body: JSON.stringify({ displayName: ' Zoë ' }),
      });
      assert.equal(accepted.status, 201, accepted.body);
      assert.equal(accepted.json().displayName, 'Zoë');
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
        404,
        'the writer is a peer of the manager, which it may not see',
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

    test('links that race: of four links of one admin to one channel at once, one changes it and has the entry; so of four unlinks', async () => {
      const linked = await subAdmin(owner, ['files:read'], []);
      const entriesOf = async (action: string) =>
        (await owner.get('/api/audit?limit=1000'))
          .json()
          .items.filter((e: { action: string; targetAdminId: string }) => e.action === action && e.targetAdminId === linked.id);
      const path = `/api/channels/${home.channel.id}/admins/${linked.id}`;
      const links = await Promise.all(Array.from({ length: 4 }, () => owner.put(path)));
      assert.deepEqual(
        links.map((r) => r.status),
        [204, 204, 204, 204],
      );
      assert.equal((await entriesOf('channel.link')).length, 1, 'one link made, one entry');
      const unlinks = await Promise.all(Array.from({ length: 4 }, () => owner.delete(path)));
      assert.deepEqual(
        unlinks.map((r) => r.status),
        [204, 204, 204, 204],
      );
      assert.equal((await entriesOf('channel.unlink')).length, 1, 'one link removed, one entry');
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
