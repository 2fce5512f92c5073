import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Principal } from '../../src/auth/principal.ts';
import { principalOf } from '../../src/auth/principal.ts';
import { AuditTrail } from '../../src/files/audit-trail.ts';
import { ChannelAccess } from '../../src/files/channel-access.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Channel, ChannelLookup, LinkedChannelListing } from '../../src/model/channels.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { createStorage, type Storage } from '../helpers/test-service.ts';

/**
 * The gate of every request on a channel, below HTTP. A channel the caller may not see — another
 * tenant's, its own tenant's unlinked one, one that does not exist — is refused alike: the same
 * 404, the same work (counted here in store calls, which a clock on a busy machine cannot show), and
 * no record in anybody's audit log. A refusal on a visible channel is recorded in that channel's log.
 */
for (const engine of ENGINES) {
  describe(`ChannelAccess: what a refusal reveals and where it is recorded (${engine})`, () => {
    let storage: Storage;
    let store: MetadataStore;
    let mine: TenantFixture;
    let theirs: TenantFixture;
    let unlinked: Channel;
    let principal: Principal;
    const calls: string[] = [];
    let access: ChannelAccess;

    before(async () => {
      storage = await createStorage(engine);
      store = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
      mine = await createTenantFixture(store, 'Mine');
      theirs = await createTenantFixture(store, 'Theirs');
      unlinked = await store.createChannel({ tenantId: mine.tenant.id, name: 'unlinked' });
      principal = principalOf((await store.loadPrincipalByWallet(mine.ownerWallet.address))!);
      // Every lookup the gate makes, by name: the cost of an answer.
      const counting =
        <A extends unknown[], R>(name: string, lookup: (...args: A) => R) =>
        (...args: A): R => {
          calls.push(name);
          return lookup(...args);
        };
      const counted: ChannelLookup & LinkedChannelListing = {
        getChannel: counting('getChannel', (id: string) => store.getChannel(id)),
        findChannelsNamed: counting('findChannelsNamed', (tenantId: string, name: string) => store.findChannelsNamed(tenantId, name)),
        listLinkedChannels: counting('listLinkedChannels', store.listLinkedChannels.bind(store)),
      };
      access = new ChannelAccess(counted, new AuditTrail(store.files, console));
    });
    after(async () => {
      await store.close();
      await storage.drop();
    });

    const attempt = async (channelRef: string, permission: 'files:restore' = 'files:restore') => {
      calls.length = 0;
      try {
        await access.open(principal, { channelRef, folder: 'docs', filename: 'a.txt', permission, audited: { action: 'restore' } });
        return { code: 'OK', calls: [...calls] };
      } catch (error) {
        return { code: (error as { code: string }).code, calls: [...calls] };
      }
    };
    const auditOf = async (channel: Channel) => (await store.files.listAudit(channel.id, { limit: 100 })).items;

    test('by id: another tenant’s channel, an unlinked one and a missing one cost the same and leave no record', async () => {
      const answers = await Promise.all([theirs.channel.id, unlinked.id, 'chn_00000000000000000000000000'].map((ref) => attempt(ref)));
      for (const answer of answers)
        assert.deepEqual(answer, { code: 'CHANNEL_NOT_FOUND', calls: [] }, 'refused from the caller’s own links');
      assert.deepEqual(await auditOf(theirs.channel), [], 'nothing in the other tenant’s audit log');
      assert.deepEqual(await auditOf(unlinked), [], 'nothing in the unlinked channel’s audit log');
    });

    test('by name: an unlinked channel and a missing name cost the same and leave no record', async () => {
      const [existing, missing] = [await attempt('unlinked'), await attempt('no-such-channel')];
      assert.deepEqual(existing, { code: 'CHANNEL_NOT_FOUND', calls: ['findChannelsNamed'] });
      assert.deepEqual(missing, existing);
      // Another tenant's channel name is not even looked at: names resolve inside the caller's tenant.
      assert.deepEqual(await attempt(theirs.channel.name === 'main' ? 'main-of-theirs' : theirs.channel.name), missing);
      assert.deepEqual(await auditOf(unlinked), []);
    });

    test('a refusal on a visible channel (a bad file name) is recorded in that channel’s own log', async () => {
      calls.length = 0;
      await assert.rejects(
        access.open(principal, {
          channelRef: mine.channel.id,
          folder: 'docs',
          filename: '..',
          permission: 'files:restore',
          audited: { action: 'restore' },
        }),
        (error: { code?: string }) => error.code === 'INVALID_PATH',
      );
      const [event] = await auditOf(mine.channel);
      assert.equal(event?.result, 'refused');
      assert.equal(event?.code, 'INVALID_PATH');
      assert.equal(event?.channelId, mine.channel.id);
      assert.equal((await attempt(mine.channel.id)).code, 'OK');
    });
  });
}
