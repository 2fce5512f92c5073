import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { serverNeeded } from './backends.ts';

/**
 * s3rver stores each object as a file whose name is the key's last segment plus a 21-byte suffix,
 * so on a 255-byte file-name limit the longest segment it holds is 233 bytes; S3 itself takes
 * 1024-byte keys and the service caps segments at 255. Tests on s3rver use this length instead.
 */
export const S3RVER_LONGEST_SEGMENT_BYTES = 233;

export interface S3Request {
  method: string;
  /** '/<bucket>/<key>' as sent, percent-encoded. */
  path: string;
  /** A server-side copy (x-amz-copy-source): the bytes stay in the store. */
  copy: boolean;
  /** With recordHeaders only: the query string ('uploads', 'partNumber=1&uploadId=…') and the headers, names lower-case. */
  query?: string;
  headers?: Record<string, string>;
}

export interface TestS3Options {
  /** Also record each request's query and headers (what a write asked for: Object Lock, checksums). */
  recordHeaders?: boolean;
  /**
   * Store a PUT's body only once it has arrived whole, as S3 does (see wholeBodiesOnly): for tests
   * that cut connections mid-upload and then look at what the bucket holds.
   */
  wholeBodies?: boolean;
}

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** Every request the server received, in order: what the service asked of the store. */
  requests: S3Request[];
  /** Every key in the bucket, temporary uploads included, sorted. */
  keys(): Promise<string[]>;
  /** Puts or reads an object directly, as someone else with access to the bucket would. */
  putText(key: string, text: string): Promise<void>;
  /** Puts an object with what a writer stores beside its bytes (a fixture's, as it was written). */
  putObject(key: string, body: Buffer, options: { contentType?: string | undefined; metadata?: Record<string, string> }): Promise<void>;
  readText(key: string): Promise<{ text: string; lastModified: number }>;
  /**
   * Resolves once no request is being handled: a killed client's last copy may still be under way
   * in s3rver, whose writes (unlike S3's) are visible half-done.
   */
  idle(): Promise<void>;
  /** The environment a service or CLI needs to use this bucket. */
  env: Record<string, string>;
  /** An outage: the server stops listening (start() brings it back on the same port, data kept). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

const ACCESS_KEY = 'S3RVER';

/**
 * s3rver reads x-amz-copy-source with decodeURI, which leaves %23 (#), %2B (+), %3F (?) and the
 * other reserved escapes undecoded, so copying a key that holds them fails with NoSuchKey. S3 and
 * MinIO decode the header fully. Re-encoding it as encodeURI would write it lets s3rver's
 * decodeURI arrive at the key S3 would; the service still sends the header fully encoded, as S3
 * requires.
 */
type KoaContext = { method: string; path: string; querystring: string; headers: Record<string, string | string[] | undefined> };

/**
 * S3 makes each write of an object atomic (the last complete write wins); s3rver writes straight
 * into the object's file, so two writes of one key at once can interleave or fail with a 500.
 * Writes of one key are taken one at a time here, as S3's atomicity would order them; uploads of
 * parts go to files of their own and stay concurrent.
 */
function oneWriteAtATimePerKey() {
  const tails = new Map<string, Promise<void>>();
  return async (ctx: KoaContext, next: () => Promise<void>): Promise<void> => {
    const writes = ctx.method === 'PUT' || ctx.method === 'DELETE' || ctx.method === 'POST';
    if (!writes || /(^|&)partNumber=/.test(ctx.querystring)) return next();
    const previous = tails.get(ctx.path) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    tails.set(ctx.path, tail);
    await previous;
    try {
      await next();
    } finally {
      release();
      if (tails.get(ctx.path) === tail) tails.delete(ctx.path);
    }
  };
}

/**
 * S3 stores an object (or a part) only once its whole body has arrived; s3rver writes the body into
 * the object's file as it comes, so a PUT whose connection is cut midway leaves a short object that
 * HEAD and GET then serve as if it were whole. Here a PUT's body is read to its end first and only
 * then handed to s3rver; one cut off is dropped, and s3rver never sees it, as S3 never stores it.
 */
async function wholeBodiesOnly(ctx: KoaContext & { req: IncomingMessage; respond?: boolean }, next: () => Promise<void>): Promise<void> {
  if (ctx.method !== 'PUT' || 'x-amz-copy-source' in ctx.headers) return next();
  const req = ctx.req;
  const body = await new Promise<Buffer | undefined>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(undefined));
    req.on('close', () => {
      if (!req.complete) resolve(undefined);
    });
  });
  if (body === undefined) {
    // The client is gone: nothing to answer, nothing stored.
    ctx.respond = false;
    return;
  }
  // s3rver reads a PUT's body from ctx.req (putObject, uploadPart), and nothing else of it.
  ctx.req = Object.assign(Readable.from([body], { objectMode: false }), { headers: req.headers }) as unknown as IncomingMessage;
  await next();
}

/** The part of s3rver's FilesystemStore (lib/stores/filesystem.js) that writesAnsweredWhenStored replaces. */
export interface FilesystemStore {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; metadata: unknown; content: Buffer | Readable }): Promise<{ size: number; md5: string }>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<{ size: number; md5: string }>;
}

/**
 * S3 answers a write once its bytes are stored. s3rver answers a PutObject, and an UploadPart,
 * once the body has passed its md5 transform, before the file it writes is complete (it resolves
 * on the transform's 'finish', and for a Buffer body at once): a list, a read or the completion of
 * a multipart upload right after can see fewer bytes (a CI run on a slow host listed a 3-byte
 * object at size 0). Here the same writes resolve once their file is closed; the files, their
 * places and the md5 beside them are s3rver's own.
 */
export function writesAnsweredWhenStored(store: FilesystemStore): void {
  const written = async (file: string, content: Buffer | Readable) => {
    await mkdir(path.dirname(file), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    await pipeline(Buffer.isBuffer(content) ? Readable.from([content]) : content, counted, createWriteStream(file));
    return { size, md5: md5.digest('hex') };
  };
  store.putObject = async (object) => {
    const stored = await written(store.getResourcePath(object.bucket, object.key, 'object'), object.content);
    await store.putMetadata(object.bucket, object.key, object.metadata, stored.md5);
    return stored;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const file = path.join(store.getResourcePath(bucket, undefined, 'uploads'), uploadId, partNumber.toString());
    const stored = await written(file, content);
    await writeFile(`${file}.md5`, stored.md5);
    return stored;
  };
}

async function decodeCopySourceAsS3Does(ctx: KoaContext, next: () => Promise<void>): Promise<void> {
  const source = ctx.headers['x-amz-copy-source'];
  if (typeof source === 'string') ctx.headers['x-amz-copy-source'] = encodeURI(decodeURIComponent(source));
  await next();
}

/**
 * A real S3-protocol server (s3rver) on loopback with one fresh bucket. The SDK takes its
 * credentials from the standard AWS variables, as in production; they are set here so that it
 * never goes looking for instance metadata.
 */
export async function startTestS3(
  bucket = `wallet-admin-${Math.random().toString(36).slice(2, 10)}`,
  options: TestS3Options = {},
): Promise<TestS3> {
  serverNeeded('An S3 server (s3rver)');
  process.env.AWS_ACCESS_KEY_ID = ACCESS_KEY;
  process.env.AWS_SECRET_ACCESS_KEY = ACCESS_KEY;
  const directory = await mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const requests: S3Request[] = [];
  // Requests in flight, per running server: one cut off by stop() may never settle (s3rver keeps
  // waiting for the body of a connection that is gone), and must not keep idle() waiting forever.
  let inFlight = { handling: 0 };
  const launch = async (port: number) => {
    const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory });
    writesAnsweredWhenStored(server.store as FilesystemStore);
    const counter = { handling: 0 };
    inFlight = counter;
    server.middleware.unshift(
      async (ctx, next) => {
        const request: S3Request = { method: ctx.method, path: ctx.path, copy: 'x-amz-copy-source' in ctx.headers };
        if (options.recordHeaders) {
          request.query = ctx.querystring;
          request.headers = Object.fromEntries(
            Object.entries(ctx.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
          );
        }
        requests.push(request);
        counter.handling++;
        try {
          await next();
        } finally {
          counter.handling--;
        }
      },
      decodeCopySourceAsS3Does,
      ...(options.wholeBodies ? [wholeBodiesOnly as (ctx: KoaContext, next: () => Promise<void>) => Promise<void>] : []),
      oneWriteAtATimePerKey(),
    );
    return { server, port: (await server.run()).port };
  };
  let { server, port } = await launch(0);
  let running = true;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    requests,
    async keys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((object) => object.Key!));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token !== undefined);
      return keys.sort();
    },
    async idle() {
      while (inFlight.handling > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    async putText(key, text) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: text }));
    },
    async putObject(key, body, options) {
      await client.send(
        new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: options.contentType, Metadata: options.metadata }),
      );
    },
    async readText(key) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return { text: await object.Body!.transformToString(), lastModified: object.LastModified!.getTime() };
    },
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: ACCESS_KEY,
      AWS_SECRET_ACCESS_KEY: ACCESS_KEY,
    },
    async stop() {
      if (!running) return;
      running = false;
      // As a crashed server would: connections in use (kept alive by the SDK) are cut, not drained.
      const closing = server.close();
      (server as unknown as { httpServer: { closeAllConnections(): void } }).httpServer.closeAllConnections();
      await closing;
    },
    async start() {
      // The same port and directory: the bucket and its objects are back as they were.
      ({ server, port } = await launch(port));
      running = true;
    },
    async close() {
      client.destroy();
      if (running) await server.close();
      running = false;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Lets s3rver (which runs in the test's own process) accept another key pair beside its S3RVER /
 * S3RVER: a tenant's own credentials, distinct from the service's, so that a test can tell the
 * secret apart from everything an answer or a log shows.
 */
export function registerS3Key(accessKeyId: string, secretAccessKey: string): void {
  const require = createRequire(import.meta.url);
  const accounts = require('s3rver/lib/models/account.js') as { DUMMY_ACCOUNT: { createKeyPair(id: string, secret: string): void } };
  accounts.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
}
