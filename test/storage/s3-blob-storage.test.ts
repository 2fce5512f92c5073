import { S3BlobStorage } from '../../src/storage/s3-blob-storage.ts';
import { S3RVER_LONGEST_SEGMENT_BYTES, startTestS3 } from '../helpers/s3-server.ts';
import { describeBlobStorageContract } from './blob-storage.contract.ts';

describeBlobStorageContract('s3 (s3rver on loopback)', async () => {
  const s3 = await startTestS3();
  const storage = new S3BlobStorage({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', forcePathStyle: true });
  return {
    storage,
    async cleanup() {
      await storage.close();
      await s3.close();
    },
  };
}, { longestSegmentBytes: S3RVER_LONGEST_SEGMENT_BYTES });
