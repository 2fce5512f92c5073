import { randomBytes } from 'node:crypto';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type MultipartUpload,
  S3Client,
  S3ServiceException,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { AppError } from '../errors/app-error.ts';
import { assertExpectedSha256, assertExpectedSize, assertRangeShape, rangeBeyondEnd, sourceNotFound } from './blob-errors.ts';
import type {
  BlobInfo,
  BlobStorage,
  ByteRange,
  CopyOptions,
  DownloadUrlOptions,
  PutOptions,
  ServedAs,
  StoredBlob,
} from './blob-storage.ts';
import { safeSegment } from './safe-path.ts';
import { Sha256Meter, sha256OfStream } from './sha256-meter.ts';
import { isStagingKey } from './staging/staging-keys.ts';
import { isTempName, TEMP_PREFIX } from './temp-files.ts';

export interface S3StorageConfig {
  endpoint: string | undefined;
  bucket: string;
  region: string;
  forcePathStyle: boolean;
  /** S3_TIMEOUT: the longest a request may wait to connect, or go without a byte either way. */
  timeoutSeconds: number;
}

/** Object metadata key holding the sha256 of the bytes, so copies are checked without reading them. */
const SHA256_META = 'sha256';
/** CopyObject copies at most 5 GiB; bigger objects are copied part by part (UploadPartCopy). */
const SINGLE_COPY_LIMIT = 5 * 1024 ** 3;
const COPY_PART_BYTES = 512 * 1024 ** 2;
const UPLOAD_PART_BYTES = 8 * 1024 ** 2;

/**
 * Blobs as objects of one bucket, keys as on disk. Uploads stream (multipart above 8 MiB) to a
 * temporary key beside the target and take the target's name by a server-side copy, which records
 * their sha256 in the object's metadata (known only once the last byte has passed). Copies
 * (restores) are server-side and checked against that sha256: no byte of a restore passes
 * through the service.
 */
export class S3BlobStorage implements BlobStorage {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: S3StorageConfig) {
    this.bucket = config.bucket;
    this.client = s3ClientFor(config);
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<StoredBlob> {
    const target = checkedKey(key);
    const temp = tempKeyBeside(target);
    const meter = new Sha256Meter(options.maxBytes);
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        try {
          meter.add(chunk);
        } catch (error) {
          done(error as Error);
          return;
        }
        done(null, chunk);
      },
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: temp, Body: counter },
      partSize: UPLOAD_PART_BYTES,
      queueSize: 2,
    });
    let failure: unknown;
    // A failing body or size limit must stop the upload, and a failed upload the body.
    const feeding = pipeline(body, counter).catch((error: unknown) => {
      failure ??= error;
      void upload.abort().catch(() => undefined);
    });
    try {
      await upload.done();
    } catch (error) {
      failure ??= error;
    }
    // After a failure the feeding is not awaited: the upload is over, and a source that does not
    // close when destroyed (an in-process request, as app.inject makes) would hold the file's lock forever.
    if (failure === undefined) await feeding;
    if (failure !== undefined) {
      body.destroy();
      await this.deleteQuietly(temp);
      throw toStorageError(failure);
    }
    const written = meter.result();
    try {
      await copyWithSha256(this.client, this.bucket, temp, target, written.size, {
        sha256: written.sha256,
        contentType: options.contentType,
        contentDisposition: options.contentDisposition,
      });
    } finally {
      await this.deleteQuietly(temp);
    }
    return written;
  }

  async get(key: string, range?: ByteRange, expected?: { size: number }): Promise<Readable | undefined> {
    const objectKey = checkedKey(key);
    if (range !== undefined) assertRangeShape(range);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: objectKey,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      const body = answer.Body as Readable;
      // A server may answer another range than asked, or the whole object (RFC 9110 allows
      // ignoring Range; s3rver does so for bytes=0-0): what was sent is cut to what was asked.
      const sent = parseContentRange(answer.ContentRange) ?? { first: 0, total: answer.ContentLength ?? 0 };
      try {
        assertExpectedSize(sent.total, expected);
      } catch (error) {
        body.destroy();
        throw error;
      }
      if (range === undefined) return body;
      if (range.start >= sent.total) {
        body.destroy();
        throw rangeBeyondEnd();
      }
      const last = Math.min(range.end, sent.total - 1);
      if (sent.first === range.start && answer.ContentLength === last - range.start + 1) return body;
      return body.pipe(byteWindow(range.start - sent.first, last - sent.first));
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (isMissing(error)) return undefined;
      if (statusOf(error) === 416) throw rangeBeyondEnd();
      throw toStorageError(error);
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const head = await this.head(checkedKey(key));
    return head && { key, size: head.size, modifiedAt: head.modifiedAt };
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    const base = `${checkedKey(prefix)}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: base, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        // Only keys this storage could have written: temporary uploads and foreign objects stay out.
        if (object.Key === undefined || !isStorageKey(object.Key)) continue;
        yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async delete(key: string): Promise<boolean> {
    const objectKey = checkedKey(key);
    // S3 answers a delete the same whether or not the object was there.
    if ((await this.head(objectKey)) === undefined) return false;
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey })).catch((error: unknown) => {
      throw toStorageError(error);
    });
    return true;
  }

  async copy(from: string, to: string, options: CopyOptions): Promise<StoredBlob> {
    const source = checkedKey(from);
    const target = checkedKey(to);
    const head = await this.head(source);
    if (head === undefined) throw sourceNotFound();
    const sha256 = head.sha256 ?? (await this.hashObject(source));
    assertExpectedSha256('source', sha256, options.expectedSha256);
    await copyWithSha256(this.client, this.bucket, source, target, head.size, {
      sha256,
      contentType: options.contentType,
      contentDisposition: options.contentDisposition,
    });
    return { size: head.size, sha256 };
  }

  async publish(from: string, to: string, servedAs: ServedAs): Promise<void> {
    const source = checkedKey(from);
    const head = await this.head(source);
    if (head === undefined) throw sourceNotFound();
    await copyWithSha256(this.client, this.bucket, source, checkedKey(to), head.size, {
      sha256: head.sha256 ?? (await this.hashObject(source)),
      ...servedAs,
    });
  }

  /**
   * A presigned GET (SigV4 in the query string, at most 7 days), signed locally with the
   * service's credentials: no request to the store. The stored type and disposition are imposed
   * on the answer, so that the store serves the bytes as the service itself would.
   */
  async downloadUrl(key: string, options: DownloadUrlOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: checkedKey(key),
      ResponseContentType: options.contentType,
      ResponseContentDisposition: options.contentDisposition,
    });
    return getSignedUrl(this.client, command, { expiresIn: options.ttlSeconds });
  }

  /** HeadBucket: the store answers and these credentials may use the bucket. */
  async ping(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      const status = statusOf(error);
      const why = status === 404 ? 'does not exist' : status === 403 ? 'refuses these credentials' : 'does not answer';
      throw new AppError('STORAGE_UNAVAILABLE', `The object store's bucket ${why}`);
    }
  }

  /** Temporary objects and unfinished multipart uploads a crash left behind. Only at start-up. */
  async removeLeftovers(): Promise<number> {
    let removed = 0;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }));
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined && isTempName(object.Key.split('/').at(-1) ?? '')) {
          await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: object.Key }));
          removed++;
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return removed + (await this.abortUnfinishedUploads());
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private async abortUnfinishedUploads(): Promise<number> {
    let uploads: MultipartUpload[];
    try {
      uploads = (await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket }))).Uploads ?? [];
    } catch (error) {
      // Some S3-compatible servers (s3rver among them) do not list uploads; nothing to abort then.
      if (error instanceof S3ServiceException && error.name === 'NotImplemented') return 0;
      throw error;
    }
    // The resumable uploads' multipart uploads (uploads/…) are theirs: their records end them (docs/uploads.md).
    const stranded = uploads.filter((upload) => !isStagingKey(upload.Key ?? ''));
    for (const upload of stranded) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: upload.Key, UploadId: upload.UploadId }));
    }
    return stranded.length;
  }

  private async head(
    objectKey: string,
  ): Promise<{ size: number; modifiedAt: number; sha256: string | undefined; contentType: string | undefined } | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }));
      return {
        size: head.ContentLength ?? 0,
        modifiedAt: head.LastModified?.getTime() ?? 0,
        sha256: head.Metadata?.[SHA256_META],
        contentType: head.ContentType,
      };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw toStorageError(error);
    }
  }

  /** For objects written by something else, without our metadata: the one case that reads the bytes. */
  private async hashObject(objectKey: string): Promise<string> {
    const body = await this.get(objectKey);
    if (body === undefined) throw sourceNotFound();
    return (await sha256OfStream(body)).sha256;
  }

  private async deleteQuietly(objectKey: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey })).catch(() => undefined);
  }
}

/** The bucket's client, as the storage and the upload staging (staging/s3-upload-staging.ts) open it. */
export function s3ClientFor(config: S3StorageConfig): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    // SDK releases from 3.729 add checksums by default that many S3-compatible servers refuse.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Without these a connection that never opens, or a store that stops answering on an open one
    // (a half-open connection), holds the request, and its file's lock, until the operating system
    // gives up. Not requestTimeout: that bounds a whole request, and a large upload or download
    // may rightly take longer than any bound; an idle socket is what a hung store looks like.
    requestHandler: { connectionTimeout: config.timeoutSeconds * 1000, socketTimeout: config.timeoutSeconds * 1000 },
  });
}

/**
 * Server-side copy with the sha256 (and how the object is served, for anyone reading the bucket
 * directly: its type and download name) recorded on the copy; part by part above CopyObject's limit.
 */
export async function copyWithSha256(
  client: S3Client,
  bucket: string,
  source: string,
  target: string,
  size: number,
  meta: { sha256: string } & ServedAs,
): Promise<void> {
  // The key part is URL-encoded, its slashes kept (they separate the bucket from the key).
  const CopySource = `${bucket}/${encodeURIComponent(source).replaceAll('%2F', '/')}`;
  const Metadata = { [SHA256_META]: meta.sha256 };
  const { contentType: ContentType, contentDisposition: ContentDisposition } = meta;
  try {
    if (size <= SINGLE_COPY_LIMIT) {
      await client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: target,
          CopySource,
          MetadataDirective: 'REPLACE',
          Metadata,
          ContentType,
          ContentDisposition,
        }),
      );
      return;
    }
    const { UploadId } = await client.send(
      new CreateMultipartUploadCommand({ Bucket: bucket, Key: target, Metadata, ContentType, ContentDisposition }),
    );
    try {
      const parts: CompletedPart[] = [];
      for (let start = 0, part = 1; start < size; start += COPY_PART_BYTES, part++) {
        const end = Math.min(start + COPY_PART_BYTES, size) - 1;
        const copied = await client.send(
          new UploadPartCopyCommand({
            Bucket: bucket,
            Key: target,
            UploadId,
            PartNumber: part,
            CopySource,
            CopySourceRange: `bytes=${start}-${end}`,
          }),
        );
        parts.push({ PartNumber: part, ETag: copied.CopyPartResult?.ETag });
      }
      await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: target, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (error) {
      await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: target, UploadId })).catch(() => undefined);
      throw error;
    }
  } catch (error) {
    throw toStorageError(error);
  }
}

/** S3's limit on a key, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;

/** The key, each segment through the one gate, exactly as the disk storage takes it. */
export function checkedKey(key: string): string {
  if (typeof key !== 'string') throw new AppError('INVALID_PATH', 'key must be a string');
  const checked = key
    .split('/')
    .map((segment) => safeSegment(segment, 'key segment'))
    .join('/');
  if (Buffer.byteLength(checked, 'utf8') > MAX_KEY_BYTES)
    throw new AppError('INVALID_PATH', `the path is longer than the object store's ${MAX_KEY_BYTES}-byte key limit`);
  return checked;
}

function parseContentRange(header: string | undefined): { first: number; total: number } | undefined {
  const match = header === undefined ? null : /^bytes (\d+)-\d+\/(\d+)$/.exec(header);
  return match ? { first: Number(match[1]), total: Number(match[2]) } : undefined;
}

/** Passes bytes start..end (inclusive) of a stream through, and ends it there. */
function byteWindow(start: number, end: number): Transform {
  let offset = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const from = Math.max(start - offset, 0);
      const to = Math.min(end + 1 - offset, chunk.length);
      offset += chunk.length;
      done(null, from < to ? chunk.subarray(from, to) : undefined);
    },
  });
}

function isStorageKey(objectKey: string): boolean {
  try {
    checkedKey(objectKey);
    return true;
  } catch {
    return false;
  }
}

function tempKeyBeside(target: string): string {
  const slash = target.lastIndexOf('/');
  return `${slash >= 0 ? target.slice(0, slash + 1) : ''}${TEMP_PREFIX}${randomBytes(12).toString('hex')}`;
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

export function isMissing(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  return name === 'NoSuchKey' || name === 'NotFound' || statusOf(error) === 404;
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'TimeoutError']);

/**
 * What a caller can act on becomes an AppError: an object store that cannot be reached or answers
 * 5xx is a 503 (try again), as a database outage is; anything else passes unchanged.
 */
export function toStorageError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const { name, code } = error as { name?: string; code?: string };
  if (name === 'EntityTooLarge') return new AppError('PAYLOAD_TOO_LARGE', 'the object store refused the size of this body');
  if (UNREACHABLE.has(code ?? '') || UNREACHABLE.has(name ?? '') || (statusOf(error) ?? 0) >= 500) {
    return new AppError('STORAGE_UNAVAILABLE', 'The object store is unavailable; nothing was changed, try again shortly');
  }
  return error;
}
