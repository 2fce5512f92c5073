import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  type PutObjectCommandInput,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  checkObjectName,
  checkObjectPrefix,
  OffsiteObjectMissing,
  type OffsiteTarget,
  type PutResult,
  sizedBody,
  type TargetObject,
} from './offsite-target.ts';

export interface S3TargetConfig {
  bucket: string;
  /** Keys are `${prefix}/${name}`; '' puts names at the bucket's top. No leading or trailing '/'. */
  prefix: string;
  /** An S3-compatible store's URL; undefined: AWS, by region. */
  endpoint?: string | undefined;
  region: string;
  forcePathStyle: boolean;
  /** Given explicitly: the off-site copy may well use other credentials than the service's own bucket. */
  accessKeyId: string;
  secretAccessKey: string;
  /** The longest a request may wait to connect, or go without a byte either way. */
  timeoutSeconds: number;
  /** > 0: every object is written under S3 Object Lock, COMPLIANCE mode, retained this many days. */
  lockDays: number;
  /** Keys per ListObjectsV2 page (S3's and the default: 1000); smaller only to test pagination. */
  pageSize?: number;
  /** A tenant's bucket: each connection's DNS answer passes the outbound rules (guarded-lookup.ts). */
  lookup?: LookupFunction;
}

/** Bodies go up in parts of this size above it, so a blob of several GB never sits in memory whole. */
const PART_BYTES = 8 * 1024 ** 2;
/** Parts in flight at once: memory held is about (this + 1) × PART_BYTES. */
const PARTS_IN_FLIGHT = 2;
/** S3's limit on a key, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Objects of one bucket under a prefix (s3://bucket/prefix). A write is refused when the key is
 * already there twice over: a HEAD first (which spares sending the body, and is the only guard on
 * stores that ignore conditional writes, s3rver among them), then the write itself with
 * If-None-Match: * (S3's conditional write: of two writers at once, the second gets 412).
 */
export class S3Target implements OffsiteTarget {
  readonly description: string;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly keyPrefix: string;
  private readonly lockDays: number;
  private readonly pageSize: number | undefined;
  /** Scrubbed from any message a store sends back, should one ever echo them. */
  private readonly secrets: string[];
  /** A tenant's bucket: agents of its own, which close() ends with every request on them. */
  private readonly agents: ClosableAgents | undefined;

  constructor(config: S3TargetConfig) {
    if (!Number.isFinite(config.lockDays) || config.lockDays < 0) throw new Error(`lockDays must be 0 or more, not ${config.lockDays}`);
    this.bucket = config.bucket;
    this.keyPrefix = config.prefix === '' ? '' : `${config.prefix}/`;
    this.lockDays = config.lockDays;
    this.pageSize = config.pageSize;
    // Not very short ones: replacing every 'a' of a message would hide more than it protects.
    this.secrets = [config.secretAccessKey, config.accessKeyId].filter((secret) => secret.length >= 4);
    this.description = `s3://${config.bucket}/${config.prefix}${endpointNote(config.endpoint)}`;
    this.agents = config.lookup && closableAgents(config.lookup);
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      // Explicit, so the SDK never falls back to the AWS_* environment or instance metadata.
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      // SDK releases from 3.729 add checksums by default that many S3-compatible servers refuse;
      // writes under Object Lock ask for one explicitly (putNew).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // A store that stops answering on an open connection must not hold a shipment forever; not
      // requestTimeout, which would also cut a multi-GB transfer that is moving.
      requestHandler: {
        connectionTimeout: config.timeoutSeconds * 1000,
        socketTimeout: config.timeoutSeconds * 1000,
        ...(this.agents && { httpAgent: this.agents.http, httpsAgent: this.agents.https }),
      },
    });
  }

  async putNew(name: string, body: Buffer | AsyncIterable<Uint8Array>, options: { size?: number } = {}): Promise<PutResult> {
    const key = this.keyOf(name);
    if ((await this.headKey(key, name)) !== undefined) return { written: false };
    // A stream, read part by part (lib-storage sends one PutObject when it all fits in one part).
    // The body's own failure is kept: lib-storage reports a failed abort of the upload instead.
    let bodyFailure: unknown;
    const source = Readable.from(
      watched(sizedBody(body, options.size), (error) => {
        bodyFailure = error;
      }),
    );
    const params: PutObjectCommandInput = {
      Bucket: this.bucket,
      Key: key,
      Body: source,
      // On PutObject and CompleteMultipartUpload: the key must not exist when the write lands.
      IfNoneMatch: '*',
      ...this.lockParams(),
    };
    const upload = new Upload({ client: this.client, params, partSize: PART_BYTES, queueSize: PARTS_IN_FLIGHT });
    try {
      await upload.done();
      return { written: true };
    } catch (error) {
      // Ends the caller's stream too, which a failed upload may have left half read.
      source.destroy();
      // Another writer's object landed between our HEAD and our write: S3 kept theirs.
      if (bodyFailure === undefined && isPreconditionFailed(error)) return { written: false };
      throw this.failure(`writing ${JSON.stringify(name)}`, bodyFailure ?? error);
    }
  }

  async get(name: string): Promise<AsyncIterable<Uint8Array>> {
    const key = this.keyOf(name);
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      // In Node.js the SDK's body is an IncomingMessage: a Readable of Buffers.
      return answer.Body as Readable;
    } catch (error) {
      if (isMissing(error)) throw new OffsiteObjectMissing(this.description, name);
      throw this.failure(`reading ${JSON.stringify(name)}`, error);
    }
  }

  async head(name: string): Promise<TargetObject | undefined> {
    return this.headKey(this.keyOf(name), name);
  }

  async *list(prefix: string): AsyncIterable<TargetObject> {
    checkObjectPrefix(prefix);
    let token: string | undefined;
    do {
      let page: ListObjectsV2CommandOutput;
      try {
        page = await this.listPage(`${this.keyPrefix}${prefix}`, token);
      } catch (error) {
        throw this.failure(`listing ${JSON.stringify(prefix)}`, error);
      }
      // S3 lists keys in UTF-8 byte order, which is the order promised here.
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(this.keyPrefix.length);
        // Only names this target could have written: folder markers and foreign keys stay out.
        if (name === undefined || !object.Key?.startsWith(this.keyPrefix) || !isObjectName(name)) continue;
        yield { name, size: object.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async remove(name: string): Promise<void> {
    const key = this.keyOf(name);
    try {
      // S3 answers 204 whether or not the key was there. Under Object Lock (a versioned bucket)
      // this adds a delete marker: the name is free, the locked version stays until its date.
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (isMissing(error)) return;
      throw this.failure(`removing ${JSON.stringify(name)}`, error);
    }
  }

  /** S3 stores no half-written object; a cut multipart upload is for the bucket's lifecycle rule to abort. */
  async removeLeftovers(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    this.agents?.close();
    this.client.destroy();
  }

  /**
   * Object Lock headers, on PutObject and CreateMultipartUpload (lib-storage passes these params
   * to both). S3 refuses a locked write without an integrity checksum (Content-MD5 or
   * x-amz-checksum-*): SHA256 makes the SDK send x-amz-checksum-sha256 on PutObject and on each
   * part (lib-storage hands it Buffers, so the checksum goes in a header, not an aws-chunked
   * trailer), and the parts' checksums in CompleteMultipartUpload.
   */
  private lockParams(): Pick<PutObjectCommandInput, 'ObjectLockMode' | 'ObjectLockRetainUntilDate' | 'ChecksumAlgorithm'> {
    if (this.lockDays === 0) return {};
    return {
      ObjectLockMode: 'COMPLIANCE',
      ObjectLockRetainUntilDate: new Date(Date.now() + this.lockDays * DAY_MS),
      ChecksumAlgorithm: 'SHA256',
    };
  }

  private listPage(keyPrefix: string, token: string | undefined): Promise<ListObjectsV2CommandOutput> {
    return this.client.send(
      new ListObjectsV2Command({ Bucket: this.bucket, Prefix: keyPrefix, ContinuationToken: token, MaxKeys: this.pageSize }),
    );
  }

  private async headKey(key: string, name: string): Promise<TargetObject | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { name, size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw this.failure(`reading ${JSON.stringify(name)}`, error);
    }
  }

  private keyOf(name: string): string {
    const key = `${this.keyPrefix}${checkObjectName(name)}`;
    if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) {
      throw new Error(`${this.description}: object name ${JSON.stringify(name)} makes a key longer than S3's ${MAX_KEY_BYTES} bytes`);
    }
    return key;
  }

  /**
   * The target and the store's error code (and HTTP status), for an operator to act on. No cause
   * attached: the SDK's error carries the raw response and the request it answered.
   */
  private failure(action: string, error: unknown): Error {
    const { name, code, message } = error as { name?: string; code?: string; message?: string };
    const status = statusOf(error);
    const what = [code ?? name ?? 'Error', status === undefined ? undefined : `HTTP ${status}`].filter(Boolean).join(', ');
    let detail = typeof message === 'string' && message !== '' && message !== name ? `: ${message}` : '';
    for (const secret of this.secrets) detail = detail.replaceAll(secret, '[redacted]');
    return new Error(`${this.description}: ${action} failed (${what})${detail}`);
  }
}

/** The same bytes, with a look at the error should the source fail. */
async function* watched(source: AsyncIterable<Uint8Array>, onError: (error: unknown) => void): AsyncIterable<Uint8Array> {
  try {
    yield* source;
  } catch (error) {
    onError(error);
    throw error;
  }
}

/** The endpoint's origin, if not AWS: without any user:password@ it might carry. */
function endpointNote(endpoint: string | undefined): string {
  if (endpoint === undefined) return '';
  try {
    return ` at ${new URL(endpoint).origin}`;
  } catch {
    return ' at an unparsable endpoint';
  }
}

function isObjectName(name: string): boolean {
  try {
    checkObjectName(name);
    return true;
  } catch {
    return false;
  }
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/** The key is not there; a missing bucket (also a 404) is a failure to report, not an absent object. */
function isMissing(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  if (name === 'NoSuchBucket') return false;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404;
}

/**
 * 412: the key existed when the write landed. Not 409 ConditionalRequestConflict (another
 * conditional write of the key under way): that one may yet fail, so it is reported, to be retried.
 */
function isPreconditionFailed(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === 'PreconditionFailed' || statusOf(error) === 412;
}

interface ClosableAgents {
  http: HttpAgent;
  https: HttpsAgent;
  close(): void;
}

/**
 * Agents whose close ends the requests under way on them and refuses new connections (the SDK's
 * retries included): a store that accepted a connection and never answers would otherwise hold
 * whoever closes the target (a service's shutdown) for the socket timeout times the SDK's attempts.
 */
function closableAgents(lookup: LookupFunction): ClosableAgents {
  let closed = false;
  const refuseWhenClosed = <T extends HttpAgent>(agent: T): T => {
    const create = (agent as unknown as { createConnection: (...args: unknown[]) => unknown }).createConnection.bind(agent);
    (agent as unknown as { createConnection: (...args: unknown[]) => unknown }).createConnection = (...args: unknown[]) => {
      if (closed) throw new Error('the off-site target was closed');
      return create(...args);
    };
    return agent;
  };
  const http = refuseWhenClosed(new HttpAgent({ keepAlive: true, lookup }));
  const https = refuseWhenClosed(new HttpsAgent({ keepAlive: true, lookup }));
  return {
    http,
    https,
    close() {
      closed = true;
      http.destroy();
      https.destroy();
    },
  };
}
