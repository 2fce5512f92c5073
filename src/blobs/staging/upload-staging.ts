import type { StagedBytes } from '../../model/uploads.ts';
import type { ServedAs, StoredBlob } from '../blob-storage.ts';

/** What an append stored, and the failure that ended its body early (the client went away, or a limit cut it). */
export interface Appended {
  staged: StagedBytes;
  /** Set when the body failed: what it delivered before is stored, and `staged` names it. */
  interrupted?: unknown;
}

/**
 * Where a resumable upload's bytes wait until it completes (docs/uploads.md): on disk a file of
 * its own, on S3 the parts of a multipart upload and a tail object. Every byte `staged.offset`
 * counts is durable (fsynced, or a stored part or object), and nothing that cleans up blobs
 * takes these. The upload's record says where they are: an append's outcome counts once the
 * record is saved, and until then what it stored is dropped with `forget`.
 */
export interface UploadStaging {
  /** Makes room for a new upload's bytes. */
  begin(uploadId: string): Promise<StagedBytes>;
  /** Stores the bytes of `body` after `staged.offset`; rejects only when the store fails. */
  append(staged: StagedBytes, body: AsyncIterable<Uint8Array>): Promise<Appended>;
  /** Removes what `other` names and `kept` does not: a superseded tail once `kept` is saved, or an append given up. */
  forget(kept: StagedBytes, other: StagedBytes): Promise<void>;
  /**
   * Makes the staged bytes the new blob `key` (a fresh one, blob-layout.ts), with their sha256
   * (read again when `sha256` is not given), and removes the staging. Tried again after a failure.
   */
  finish(staged: StagedBytes, key: string, options: { servedAs: ServedAs; sha256?: string | undefined }): Promise<StoredBlob>;
  /** Removes every byte of the upload (terminated, expired, or refused at its completion). */
  discard(staged: StagedBytes): Promise<void>;
  close(): Promise<void>;
}

/**
 * Hands each chunk of `body` to `store`, in turn. A failure of the body itself (the client went
 * away, or a limit of the caller's cut it) ends the loop and is answered, so that what came
 * before it is kept; a failure of `store` rejects.
 */
export async function eachChunk(body: AsyncIterable<Uint8Array>, store: (chunk: Uint8Array) => Promise<void>): Promise<unknown> {
  const chunks = body[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await chunks.next();
    } catch (error) {
      return error ?? new Error('the body failed');
    }
    if (next.done) return undefined;
    await store(next.value);
  }
}
