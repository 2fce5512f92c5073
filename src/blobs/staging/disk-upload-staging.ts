import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rm, truncate } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { StagedBytes } from '../../model/uploads.ts';
import type { BlobStorage, ServedAs, StoredBlob } from '../blob-storage.ts';
import { fsyncDirectory } from '../durable-directories.ts';
import { toStorageError } from '../fs-errors.ts';
import { type Appended, eachChunk, type UploadStaging } from './upload-staging.ts';

/**
 * An upload's bytes as one file, `<DATA_DIR>/uploads/<uploadId>`, outside the blob root: written
 * at the offset each PATCH starts from and fsynced before the offset counts them. At completion
 * the file is stored as the blob through the storage's own put (which hashes it as it goes: the
 * sha256 is read again there, whatever instance received the bytes), then removed.
 */
export class DiskUploadStaging implements UploadStaging {
  readonly #directory: string;

  constructor(
    directory: string,
    private readonly blobs: BlobStorage,
  ) {
    this.#directory = path.resolve(directory);
  }

  async begin(uploadId: string): Promise<StagedBytes> {
    try {
      await mkdir(this.#directory, { recursive: true });
      const handle = await open(this.#fileOf(uploadId), 'wx');
      await handle.sync();
      await handle.close();
      await fsyncDirectory(this.#directory);
    } catch (error) {
      throw toStorageError(error);
    }
    return { uploadId, offset: 0, multipartId: null, parts: [], tailKey: null, tailSize: 0 };
  }

  async append(staged: StagedBytes, body: AsyncIterable<Uint8Array>): Promise<Appended> {
    let handle: FileHandle;
    try {
      handle = await open(this.#fileOf(staged.uploadId), 'r+');
    } catch (error) {
      throw toStorageError(error);
    }
    let written = 0;
    let interrupted: unknown;
    try {
      interrupted = await eachChunk(body, async (chunk) => {
        for (let done = 0; done < chunk.length; ) {
          const { bytesWritten } = await handle.write(chunk, done, chunk.length - done, staged.offset + written);
          done += bytesWritten;
          written += bytesWritten;
        }
      });
      // What the body delivered before it failed counts too: it is durable once this returns.
      await handle.sync();
    } catch (error) {
      throw toStorageError(error);
    } finally {
      await handle.close().catch(() => undefined);
    }
    return { staged: { ...staged, offset: staged.offset + written }, interrupted };
  }

  async forget(kept: StagedBytes, other: StagedBytes): Promise<void> {
    // Bytes past the saved offset are overwritten by the next append; cut them now all the same.
    if (other.offset > kept.offset) await truncate(this.#fileOf(kept.uploadId), kept.offset).catch(() => undefined);
  }

  async finish(staged: StagedBytes, key: string, options: { servedAs: ServedAs }): Promise<StoredBlob> {
    const file = this.#fileOf(staged.uploadId);
    const body = staged.offset === 0 ? Readable.from([]) : createReadStream(file, { start: 0, end: staged.offset - 1 });
    const stored = await this.blobs.put(key, body, options.servedAs);
    await rm(file, { force: true });
    return stored;
  }

  async discard(staged: StagedBytes): Promise<void> {
    await rm(this.#fileOf(staged.uploadId), { force: true });
  }

  async close(): Promise<void> {}

  #fileOf(uploadId: string): string {
    // Upload ids are ours (hex): never a caller's path.
    if (!/^[0-9a-f]{32}$/.test(uploadId)) throw new Error(`not an upload id: ${uploadId}`);
    return path.join(this.#directory, uploadId);
  }
}
