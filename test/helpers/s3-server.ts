import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The environment a service or CLI needs to use this bucket. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const ACCESS_KEY = 'S3RVER';

/**
 * A real S3-protocol server (s3rver) on loopback with one fresh bucket. The SDK takes its
 * credentials from the standard AWS variables, as in production; they are set here so that it
 * never goes looking for instance metadata.
 */
export async function startTestS3(bucket = `wallet-admin-${Math.random().toString(36).slice(2, 10)}`): Promise<TestS3> {
  process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = ACCESS_KEY;
  const directory = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    endpoint,
    bucket,
    env: { STORAGE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_REGION: 'us-east-1', S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: ACCESS_KEY, AWS_SECRET_ACCESS_KEY: ACCESS_KEY },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
