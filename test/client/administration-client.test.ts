import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, fromViemAccount, ProblemError, paginate } from '../../src/client/index.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, type TestWallet } from '../helpers/wallets.ts';

/** A refusal of the service with this code, as the client throws it. */
const refusedWith =
  (...codes: string[]) =>
  (error: unknown) => {
    assert.ok(error instanceof ProblemError, String(error));
    assert.ok(codes.includes(error.code), error.message);
    return true;
  };

describe("the client library: a tenant's self-service (sqlite)", () => {
  let svc: TestService;
  let fixture: TenantFixture;
  const clientOf = (wallet: TestWallet) => createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(wallet.account) });

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'AdminClient');
  });
  after(() => svc.close());

  test('admins: create, read with its ETag, update under If-Match, list with filters, remove', async () => {
    const owner = clientOf(fixture.ownerWallet);
    const subWallet = newWallet();
    const created = await owner.createAdmin({
      displayName: 'Sub',
      wallet: subWallet.address,
      permissions: ['files:read', 'files:write'],
      channels: [fixture.channel.name],
    });
    assert.deepEqual(
      [created.ownerAdminId, created.wallets, created.channelIds, created.status],
      [fixture.owner.id, [subWallet.address], [fixture.channel.id], 'ACTIVE'],
    );
    assert.match(created.etag, /^(W\/)?".+"$/);

    const read = await owner.getAdmin(created.id);
    const narrowed = await owner.updateAdmin(created.id, { permissions: ['files:read'] }, { ifMatch: read.etag });
    assert.deepEqual(narrowed.effectivePermissions, ['files:read']);
    assert.notEqual(narrowed.etag, read.etag);
    // The ETag read before the change no longer matches: nothing changes.
    await assert.rejects(
      owner.updateAdmin(created.id, { displayName: 'Stale' }, { ifMatch: read.etag }),
      refusedWith('PRECONDITION_FAILED'),
    );
    assert.equal((await owner.getAdmin(created.id)).displayName, 'Sub');

    const suspended = await owner.listAdmins({ status: 'SUSPENDED' });
    assert.deepEqual(suspended.items, []);
    await owner.updateAdmin(created.id, { status: 'SUSPENDED' });
    assert.deepEqual(
      (await owner.listAdmins({ status: 'SUSPENDED' })).items.map((a) => a.id),
      [created.id],
    );
    const all = [];
    for await (const admin of paginate((page) => owner.listAdmins(page), { limit: 1 })) all.push(admin.id);
    assert.deepEqual(all.sort(), [created.id, fixture.owner.id].sort());

    await owner.removeAdmin(created.id);
    const removed = await owner.getAdmin(created.id);
    assert.deepEqual([removed.status, removed.wallets], ['REMOVED', []]);
  });

  test("wallets: a wallet is added with its own signature of the service's challenge, and removed", async () => {
    const owner = clientOf(fixture.ownerWallet);
    const second = newWallet();
    const challenge = await owner.walletChallenge(fixture.owner.id, second.address);
    assert.equal(challenge.typedData.message.wallet, second.address);
    const added = await owner.addWallet(fixture.owner.id, fromViemAccount(second.account));
    assert.equal(added.address, second.address);
    assert.deepEqual(
      (await owner.listWallets(fixture.owner.id)).items.map((w) => w.address).sort(),
      [fixture.ownerWallet.address, second.address].sort(),
    );
    // The new wallet signs in as the same admin.
    assert.equal((await clientOf(second).authTest()).principal.id, fixture.owner.id);
    await owner.removeWallet(fixture.owner.id, second.address);
    await assert.rejects(clientOf(second).authTest(), refusedWith('AUTH_UNKNOWN_WALLET'));
    await assert.rejects(owner.removeWallet(fixture.owner.id, fixture.ownerWallet.address), refusedWith('LAST_WALLET', 'LAST_OWNER'));
  });

  test('invitations: created with a token shown once, listed without it, accepted once, revoked', async () => {
    const owner = clientOf(fixture.ownerWallet);
    const invitation = await owner.createInvitation({ permissions: ['files:read'], channels: [fixture.channel.id], expiresIn: 600 });
    assert.ok(invitation.token.length > 20);
    assert.ok(invitation.url.endsWith(`#token=${invitation.token}`), invitation.url);
    const pending = await owner.listInvitations();
    assert.equal(pending.items.find((i) => i.id === invitation.id)?.state, 'pending');
    assert.ok(!JSON.stringify(pending).includes(invitation.token), 'a list never shows a token');

    const invitee = newWallet();
    const admin = await clientOf(invitee).acceptInvitation(invitation.token, { displayName: 'Invited' });
    assert.deepEqual([admin.displayName, admin.ownerAdminId, admin.wallets], ['Invited', fixture.owner.id, [invitee.address]]);
    await assert.rejects(clientOf(newWallet()).acceptInvitation(invitation.token), refusedWith('INVITATION_USED'));

    const revoked = await owner.createInvitation({ permissions: [], channels: [], expiresIn: 600 });
    await owner.revokeInvitation(revoked.id);
    await assert.rejects(clientOf(newWallet()).acceptInvitation(revoked.token), refusedWith('INVITATION_REVOKED'));
  });

  test("channels: created, renamed, archived, admins linked and unlinked; the tenant's audit log tells it", async () => {
    const owner = clientOf(fixture.ownerWallet);
    const channel = await owner.createChannel('reports');
    assert.deepEqual([channel.name, channel.archived], ['reports', false]);
    assert.deepEqual((await owner.updateChannel(channel.id, { name: 'reports-2026' })).name, 'reports-2026');
    assert.equal((await owner.updateChannel('reports-2026', { archived: true })).archived, true);

    const member = await owner.createAdmin({ displayName: 'Member', wallet: newWallet().address, permissions: [], channels: [] });
    await owner.linkAdmin(channel.id, member.id);
    assert.ok((await owner.listChannelAdmins(channel.id)).items.some((a) => a.id === member.id));
    await owner.unlinkAdmin(channel.id, member.id);
    assert.ok(!(await owner.listChannelAdmins(channel.id)).items.some((a) => a.id === member.id));

    const links = await owner.tenantAudit({ action: 'channel.link' });
    assert.ok(links.items.some((e) => e.targetAdminId === member.id));
    const creations = await owner.tenantAudit({ targetAdminId: member.id });
    assert.ok(creations.items.some((e) => e.action === 'admin.create' && e.change !== null));
  });
});
