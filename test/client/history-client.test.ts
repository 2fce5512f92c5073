import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, fromViemAccount, ProblemError } from '../../src/client/index.ts';
import { nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

describe('the client library: deleted files and changes (sqlite)', () => {
  let svc: TestService;
  let fixture: TenantFixture;

  before(async () => {
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'HistoryClient');
  });
  after(() => svc.close());

  test('listDeleted and changes, paged, and a refusal as a ProblemError', async () => {
    const client = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    const channel = fixture.channel.name;
    await client.upload(channel, 'docs', 'a.txt', 'a');
    await client.upload(channel, 'docs', 'b.txt', 'b');
    await nextSecond();
    const from = (await client.createBackup(channel)).timestamp;
    await client.deleteFile(channel, 'docs', 'a.txt');
    await client.deleteFile(channel, 'docs', 'b.txt');

    const first = await client.listDeleted(channel, 'docs', { limit: 1 });
    assert.deepEqual(
      first.items.map((d) => [d.filename, d.sha256, d.deletedBy]),
      [['a.txt', sha256('a'), fixture.owner.id]],
    );
    assert.ok(first.next);
    const second = await client.listDeleted(channel, 'docs', { limit: 1, cursor: first.next });
    assert.deepEqual(
      second.items.map((d) => d.filename),
      ['b.txt'],
    );
    assert.equal(second.next, null);
    await client.restore(channel, 'docs', 'b.txt', { versionId: second.items[0]!.versionId });

    const changes = await client.changes(channel, { from, folder: 'docs' });
    assert.deepEqual(changes, {
      items: [{ folder: 'docs', filename: 'a.txt', change: 'deleted', size: 1, sha256: sha256('a') }],
      next: null,
    });
    // The backup `from` lies before now: as the newer end it is refused, as an unknown backup is.
    await assert.rejects(client.changes(channel, { fromAt: new Date(), to: from }), (error: unknown) => {
      assert.ok(error instanceof ProblemError);
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.match(error.detail, /^to \(\d{8}_\d{6}\) is older than fromAt/);
      return true;
    });
    await assert.rejects(
      client.changes(channel, { from, to: '20000101_000000' }),
      (error: unknown) => error instanceof ProblemError && error.code === 'BACKUP_NOT_FOUND',
    );
  });
});
