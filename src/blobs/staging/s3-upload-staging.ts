import { randomBytes } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { StagedBytes, StagedPart } from '../../model/uploads.ts';
import type { ServedAs, StoredBlob } from '../blob-storage.ts';
import { copyWithSha256, isMissing, type S3StorageConfig, s3ClientFor, toStorageError } from '../s3-blob-storage.ts';
import { asBytes, sha256OfStream } from '../sha256-meter.ts';
import { STAGING_ROOT } from './staging-keys.ts';
import { type Appended, eachChunk, type UploadStaging } from './upload-staging.ts';

/** S3's smallest part but the last. */
const MIN_PART_BYTES = 5 * 1024 ** 2;
/** Parts are sent at this size (10,000 parts: uploads up to 80 GiB); only one is ever held in memory. */
const PART_BYTES = 8 * 1024 ** 2;

/**
 * An upload's bytes as the parts of one multipart upload at `uploads/<id>/data`, each part's size
 * and ETag in the upload's record (so no instance needs ListParts, which not every S3 server
 * offers), and the bytes after the last part (shorter than S3's 5 MiB minimum) as an object of
 * their own, `uploads/<id>/tail-<random>`: a new one each time it changes, so that the tail the
 * saved record names is never overwritten. No part is sent twice, unless a refused append sent it.
 */
export class S3UploadStaging implements UploadStaging {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: S3StorageConfig) {
    this.client = s3ClientFor(config);
    this.bucket = config.bucket;
  }

  async begin(uploadId: string): Promise<StagedBytes> {
    return { uploadId, offset: 0, multipartId: null, parts: [], tailKey: null, tailSize: 0 };
  }

  async append(staged: StagedBytes, body: AsyncIterable<Uint8Array>): Promise<Appended> {
    const parts: StagedPart[] = [...staged.parts];
    let multipartId = staged.multipartId;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const sendPart = async (bytes: Buffer) => {
      multipartId ??= await this.createMultipart(staged.uploadId);
      parts.push({ size: bytes.length, etag: await this.uploadPart(staged.uploadId, multipartId, parts.length + 1, bytes) });
    };
    let interrupted: unknown;
    try {
      if (staged.tailKey !== null && staged.tailSize > 0) {
        const tail = await this.read(staged.tailKey);
        pending.push(tail);
        pendingBytes += tail.length;
      }
      interrupted = await eachChunk(body, async (chunk) => {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
        pending.push(bytes);
        pendingBytes += bytes.length;
        while (pendingBytes >= PART_BYTES) {
          const joined = Buffer.concat(pending);
          await sendPart(joined.subarray(0, PART_BYTES));
          const rest = joined.subarray(PART_BYTES);
          pending = [rest];
          pendingBytes = rest.length;
        }
      });
      const rest = Buffer.concat(pending);
      let tailKey: string | null = null;
      if (rest.length >= MIN_PART_BYTES) await sendPart(rest);
      else if (rest.length > 0) {
        const unchanged = parts.length === staged.parts.length && rest.length === staged.tailSize;
        tailKey = unchanged ? staged.tailKey : await this.writeTail(staged.uploadId, rest);
      }
      const tailSize = tailKey === null ? 0 : rest.length;
      const offset = parts.reduce((sum, part) => sum + part.size, 0) + tailSize;
      return { staged: { ...staged, offset, multipartId, parts, tailKey, tailSize }, interrupted };
    } catch (error) {
      throw toStorageError(error);
    }
  }

  async forget(kept: StagedBytes, other: StagedBytes): Promise<void> {
    if (other.tailKey !== null && other.tailKey !== kept.tailKey) await this.deleteQuietly(other.tailKey);
  }

  async finish(staged: StagedBytes, key: string, options: { servedAs: ServedAs; sha256?: string | undefined }): Promise<StoredBlob> {
    try {
      const dataKey = await this.assemble(staged);
      const sha256 = options.sha256 ?? (await sha256OfStream(await this.stream(dataKey))).sha256;
      await copyWithSha256(this.client, this.bucket, dataKey, key, staged.offset, { sha256, ...options.servedAs });
      await this.discard(staged);
      return { size: staged.offset, sha256 };
    } catch (error) {
      throw toStorageError(error);
    }
  }

  async discard(staged: StagedBytes): Promise<void> {
    if (staged.multipartId !== null) {
      await this.client
        .send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: dataKeyOf(staged.uploadId), UploadId: staged.multipartId }))
        .catch(() => undefined);
    }
    if (staged.tailKey !== null) await this.deleteQuietly(staged.tailKey);
    await this.deleteQuietly(dataKeyOf(staged.uploadId));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  /** The object holding every staged byte: the tail alone, or the multipart upload completed (once: a retry finds it done). */
  private async assemble(staged: StagedBytes): Promise<string> {
    const dataKey = dataKeyOf(staged.uploadId);
    if (staged.parts.length === 0) {
      if (staged.tailKey !== null) return staged.tailKey;
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: dataKey, Body: Buffer.alloc(0), ContentLength: 0 }));
      return dataKey;
    }
    if ((await this.sizeOf(dataKey)) === staged.offset) return dataKey;
    const parts = [...staged.parts];
    const multipartId = staged.multipartId as string;
    if (staged.tailKey !== null && staged.tailSize > 0) {
      const tail = await this.read(staged.tailKey);
      parts.push({ size: tail.length, etag: await this.uploadPart(staged.uploadId, multipartId, parts.length + 1, tail) });
    }
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: dataKey,
        UploadId: multipartId,
        MultipartUpload: { Parts: parts.map((part, index) => ({ PartNumber: index + 1, ETag: part.etag })) },
      }),
    );
    return dataKey;
  }

  private async createMultipart(uploadId: string): Promise<string> {
    const created = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: dataKeyOf(uploadId) }));
    if (created.UploadId === undefined) throw new Error('the object store answered no multipart upload id');
    return created.UploadId;
  }

  private async uploadPart(uploadId: string, multipartId: string, partNumber: number, bytes: Buffer): Promise<string> {
    const sent = await this.client.send(
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: dataKeyOf(uploadId),
        UploadId: multipartId,
        PartNumber: partNumber,
        Body: bytes,
        ContentLength: bytes.length,
      }),
    );
    if (sent.ETag === undefined) throw new Error('the object store answered a part without an ETag');
    return sent.ETag;
  }

  private async writeTail(uploadId: string, bytes: Buffer): Promise<string> {
    const key = `${STAGING_ROOT}/${uploadId}/tail-${randomBytes(8).toString('hex')}`;
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length }));
    return key;
  }

  private async read(key: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.stream(key)) chunks.push(Buffer.from(asBytes(chunk)));
    return Buffer.concat(chunks);
  }

  private async stream(key: string): Promise<AsyncIterable<unknown>> {
    const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return got.Body as AsyncIterable<unknown>;
  }

  private async sizeOf(key: string): Promise<number | undefined> {
    try {
      return (await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }))).ContentLength;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  private async deleteQuietly(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })).catch(() => undefined);
  }
}

const dataKeyOf = (uploadId: string) => `${STAGING_ROOT}/${uploadId}/data`;
