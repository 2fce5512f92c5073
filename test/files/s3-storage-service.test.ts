import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { startTestS3, type TestS3 } from '../helpers/s3-server.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

// The first step of issue 4: the service on STORAGE=s3 (a real S3-protocol server) and PostgreSQL.
describe('STORAGE=s3 on PostgreSQL: put → backup → change → restore → download', () => {
  let s3: TestS3;
  let svc: TestService;
  let fixture: TenantFixture;
  let client: FilesClient;

  before(async () => {
    s3 = await startTestS3();
    svc = await startTestService('postgres', { env: s3.env });
    fixture = await createTenantFixture(svc.service.store, 'S3');
    client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
  });
  after(async () => {
    await svc.close();
    await s3.close();
  });

  test('the restore brings back the backup, keeps the replaced version, and the URL serves the bytes', async () => {
    const original = Buffer.alloc(9 * 1024 * 1024, 7); // above the multipart threshold
    assert.equal((await client.put('docs', 'big.bin', original)).status, 201);
    await nextSecond();
    const backup = await client.backup();
    assert.equal(backup.status, 201, backup.body);
    assert.equal((await client.put('docs', 'big.bin', 'changed')).status, 200);

    const restored = await client.restore('docs', 'big.bin', `?backupTimestamp=${backup.json().timestamp}`);
    assert.equal(restored.status, 200, restored.body);
    assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
    const download = await client.get('docs', 'big.bin');
    assert.equal(download.status, 200);
    assert.equal(sha256(download.bytes), sha256(original));
    const versions = (await client.versions('docs', 'big.bin')).json().items as { kind: string; sha256: string }[];
    assert.deepEqual(versions.map((v) => [v.kind, v.sha256]), [['replaced', sha256('changed')], ['replaced', sha256(original)], ['backup', sha256(original)]]);
    assert.equal((await client.get('docs', 'big.bin', { Range: 'bytes=0-0' })).bytes.length, 1);
  });
});
