import { type FileHandle, mkdir, open, rm, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { StagedBytes } from '../../model/uploads.ts';
import type { StoredBlob } from '../blob-storage.ts';
import type { DiskBlobStorage } from '../disk-blob-storage.ts';
import { fsyncDirectory } from '../durable-directories.ts';
import { toStorageError } from '../fs-errors.ts';
import { type Appended, eachChunk, type UploadStaging } from './upload-staging.ts';

/**
 * An upload's bytes as one file, `<DATA_DIR>/uploads/<uploadId>`, beside the blob root and never
 * in it: written at the offset each PATCH starts from and fsynced before the offset counts them.
 * At completion the file becomes the blob by a hard link (no byte copied; copied only where the
 * filesystem refuses links), its sha256 the running hash of the instance that saw every byte, or
 * read once; the staging name goes once the file is committed, so a completion tried again finds it.
 */
export class DiskUploadStaging implements UploadStaging {
  readonly #directory: string;

  constructor(
    directory: string,
    private readonly blobs: Pick<DiskBlobStorage, 'adoptFile'>,
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

  async finish(staged: StagedBytes, key: string, options: { sha256?: string | undefined }): Promise<StoredBlob> {
    const file = this.#fileOf(staged.uploadId);
    try {
      // Bytes past the offset (a refused PATCH's, never counted) are not the upload's.
      await truncate(file, staged.offset);
    } catch (error) {
      throw toStorageError(error);
    }
    return this.blobs.adoptFile(key, file, options.sha256);
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
