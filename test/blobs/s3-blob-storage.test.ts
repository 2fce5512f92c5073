import assert from 'node:assert/strict';
import { test } from 'node:test';
import { S3BlobStorage } from '../../src/blobs/s3-blob-storage.ts';
import { S3RVER_LONGEST_SEGMENT_BYTES, startTestS3 } from '../helpers/s3-server.ts';
import { assertAppError, describeBlobStorageContract } from './blob-storage.contract.ts';

describeBlobStorageContract(
  's3 (s3rver on loopback)',
  async () => {
    const s3 = await startTestS3();
    const storage = new S3BlobStorage({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: 'us-east-1',
      forcePathStyle: true,
      timeoutSeconds: 60,
    });
    return {
      storage,
      async cleanup() {
        await storage.close();
        await s3.close();
      },
    };
  },
  { longestSegmentBytes: S3RVER_LONGEST_SEGMENT_BYTES },
);

test('s3: ping names a missing bucket, and an unreachable store, as STORAGE_UNAVAILABLE', async () => {
  const s3 = await startTestS3();
  const options = { endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, timeoutSeconds: 60 };
  const present = new S3BlobStorage({ ...options, bucket: s3.bucket });
  const missing = new S3BlobStorage({ ...options, bucket: 'no-such-bucket' });
  try {
    await present.ping();
    await assertAppError(missing.ping(), 'STORAGE_UNAVAILABLE');
    await assert.rejects(missing.ping(), /bucket does not exist/);
    await s3.close();
    await assertAppError(present.ping(), 'STORAGE_UNAVAILABLE');
    await assert.rejects(present.ping(), /bucket does not answer/);
  } finally {
    await present.close();
    await missing.close();
  }
});
