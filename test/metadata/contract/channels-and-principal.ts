import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ContractContext, ID_SUFFIX, randomWallet } from './support.ts';

/** Channels, links, and the principal record that authentication reads. */
export function channelAndPrincipalContract(ctx: ContractContext): void {
  describe('channels', () => {
    test('createChannel, getChannel and findChannelByName agree', async () => {
      const t = await ctx.tenant();
      const channel = await ctx.store.createChannel({ tenantId: t.id, name: ' news ' });
      assert.match(channel.id, new RegExp(`^chn_${ID_SUFFIX}$`));
      assert.deepEqual(channel, { id: channel.id, tenantId: t.id, name: 'news', createdAt: channel.createdAt, archivedAt: null });
      assert.deepEqual(await ctx.store.getChannel(channel.id), channel);
      assert.deepEqual(await ctx.store.findChannelByName(t.id, 'news'), channel);
      assert.equal(await ctx.store.findChannelByName(t.id, 'other'), undefined);
      assert.equal(await ctx.store.findChannelByName((await ctx.tenant()).id, 'news'), undefined);
      assert.equal(await ctx.store.getChannel('chn_missing'), undefined);
    });

    test('a channel name is unique within its tenant only', async () => {
      const t = await ctx.tenant();
      await ctx.store.createChannel({ tenantId: t.id, name: 'main' });
      await assert.rejects(ctx.store.createChannel({ tenantId: t.id, name: 'main' }), { code: 'CHANNEL_NAME_TAKEN', message: /main/ });
      await ctx.store.createChannel({ tenantId: (await ctx.tenant()).id, name: 'main' });
      const results = await Promise.allSettled([1, 2].map(() => ctx.store.createChannel({ tenantId: t.id, name: 'raced' })));
      assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
      assert.equal((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason.code, 'CHANNEL_NAME_TAKEN');
    });

    test('findChannelsByName finds a name in every tenant that has it, and nothing else', async () => {
      const name = `shared-${Date.now()}-${Math.random()}`;
      const first = await ctx.store.createChannel({ tenantId: (await ctx.tenant()).id, name });
      const second = await ctx.store.createChannel({ tenantId: (await ctx.tenant()).id, name });
      await ctx.store.createChannel({ tenantId: first.tenantId, name: `${name}-other` });
      assert.deepEqual((await ctx.store.findChannelsByName(` ${name} `)).map((c) => c.id).sort(), [first.id, second.id].sort());
      assert.deepEqual(await ctx.store.findChannelsByName(`${name}-missing`), []);
    });

    test('createChannel needs a real tenant and a name', async () => {
      await assert.rejects(ctx.store.createChannel({ tenantId: 't_missing', name: 'x' }), { code: 'TENANT_NOT_FOUND' });
      await assert.rejects(ctx.store.createChannel({ tenantId: (await ctx.tenant()).id, name: ' ' }), {
        code: 'VALIDATION_FAILED',
        message: /Channel name/,
      });
    });

    test("listChannels returns one tenant's channels by creation time, then id", async () => {
      const t = await ctx.tenant();
      const created = [];
      for (const name of ['c', 'a', 'b']) created.push(await ctx.store.createChannel({ tenantId: t.id, name }));
      await ctx.store.createChannel({ tenantId: (await ctx.tenant()).id, name: 'elsewhere' });
      const expected = [...created].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      assert.deepEqual(await ctx.store.listChannels(t.id), expected);
      assert.deepEqual(await ctx.store.listChannels((await ctx.tenant()).id), []);
      await assert.rejects(ctx.store.listChannels('t_missing'), { code: 'TENANT_NOT_FOUND' });
    });

    test('links are idempotent both ways', async () => {
      const t = await ctx.tenant();
      const a = await ctx.admin(t);
      const first = await ctx.store.createChannel({ tenantId: t.id, name: 'one' });
      const second = await ctx.store.createChannel({ tenantId: t.id, name: 'two' });
      await ctx.store.linkChannel(second.id, a.id);
      await ctx.store.linkChannel(first.id, a.id);
      await ctx.store.linkChannel(first.id, a.id);
      assert.deepEqual((await ctx.store.loadPrincipalByWallet(a.wallet))?.channelIds, [first.id, second.id].sort());
      await ctx.store.unlinkChannel(first.id, a.id);
      await ctx.store.unlinkChannel(first.id, a.id);
      assert.deepEqual((await ctx.store.loadPrincipalByWallet(a.wallet))?.channelIds, [second.id]);
    });

    test('linking needs a real channel and admin of one tenant', async () => {
      const t = await ctx.tenant();
      const a = await ctx.admin(t);
      const channel = await ctx.store.createChannel({ tenantId: t.id, name: 'main' });
      const foreign = await ctx.store.createChannel({ tenantId: (await ctx.tenant()).id, name: 'main' });
      await assert.rejects(ctx.store.linkChannel(foreign.id, a.id), { code: 'VALIDATION_FAILED', message: /different tenants/ });
      await assert.rejects(ctx.store.unlinkChannel(foreign.id, a.id), { code: 'VALIDATION_FAILED' });
      await assert.rejects(ctx.store.linkChannel('chn_missing', a.id), { code: 'CHANNEL_NOT_FOUND', message: /chn_missing/ });
      await assert.rejects(ctx.store.linkChannel(channel.id, 'adm_missing'), { code: 'ADMIN_NOT_FOUND', message: /adm_missing/ });
      await assert.rejects(ctx.store.unlinkChannel('chn_missing', a.id), { code: 'CHANNEL_NOT_FOUND' });
      assert.deepEqual((await ctx.store.loadPrincipalByWallet(a.wallet))?.channelIds, []);
    });
  });

  describe('principal', () => {
    test("loadPrincipalByWallet reads the admin, its lists and its tenant's features, all sorted", async () => {
      const t = await ctx.tenant();
      await ctx.store.addTenantFeature(t.id, 'tf-b');
      await ctx.store.addTenantFeature(t.id, 'tf-a');
      const a = await ctx.admin(t, { permissions: ['files:write', 'audit:read'], features: ['f2', 'f1'] });
      const neighbour = await ctx.admin(t, { permissions: ['files:read'], features: ['other'] });
      const channels = [];
      for (const name of ['x', 'y', 'z']) channels.push(await ctx.store.createChannel({ tenantId: t.id, name }));
      for (const channel of channels) await ctx.store.linkChannel(channel.id, a.id);
      await ctx.store.linkChannel(channels[0]!.id, neighbour.id);
      await ctx.store.addTenantFeature((await ctx.tenant()).id, 'not-ours');

      const record = await ctx.store.loadPrincipalByWallet(a.wallet.toUpperCase().replace('0X', '0x'));
      // The admin as read after its channels were linked (a link raises its revision).
      assert.deepEqual(record, {
        admin: await ctx.store.getAdmin(a.id),
        tenantFeatures: ['tf-a', 'tf-b'],
        channelIds: channels.map((c) => c.id).sort(),
      });
      assert.deepEqual(a.permissions, ['audit:read', 'files:write']);
      assert.deepEqual(a.features, ['f1', 'f2']);
    });

    test('an admin with nothing granted gets empty lists; an unknown wallet gets nothing', async () => {
      const a = await ctx.admin(await ctx.tenant());
      assert.deepEqual(await ctx.store.loadPrincipalByWallet(a.wallet), { admin: a, tenantFeatures: [], channelIds: [] });
      assert.equal(await ctx.store.loadPrincipalByWallet(randomWallet()), undefined);
    });

    test('the record shows a suspension', async () => {
      const a = await ctx.admin(await ctx.tenant());
      await ctx.store.setAdminStatus(a.id, 'SUSPENDED');
      assert.equal((await ctx.store.loadPrincipalByWallet(a.wallet))?.admin.status, 'SUSPENDED');
    });
  });
}
