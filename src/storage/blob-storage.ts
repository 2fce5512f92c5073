import type { Readable } from 'node:stream';

export interface BlobInfo {
  key: string;
  size: number;
  modifiedAt: number; // epoch ms
}

export interface StoredBlob {
  size: number;
  sha256: string; // lowercase hex
}

export interface PutOptions {
  /** Refuse (PAYLOAD_TOO_LARGE) once more bytes than this arrive; the previous blob stays intact. */
  maxBytes?: number;
  /**
   * Runs after the new bytes are fully written and durable, just before they replace the blob
   * at `key`: the moment to keep the current version. If it throws, nothing is replaced.
   */
  beforeCommit?: (written: StoredBlob) => Promise<void>;
  /** Recorded with the blob where the backend keeps one (S3), so that it serves the bytes as such. */
  contentType?: string;
}

export interface DownloadUrlOptions {
  ttlSeconds: number;
  /** What the download is answered with, whatever was recorded with the blob. */
  contentType: string;
  contentDisposition: string;
}

export interface ByteRange {
  start: number; // inclusive
  end: number; // inclusive
}

/**
 * Where file bytes live, behind one interface: local disk or an S3-compatible bucket.
 * Keys are '/'-joined segments, each of which has passed safeSegment() (see safe-path.ts);
 * an implementation re-checks every key and never touches anything outside its root.
 */
export interface BlobStorage {
  readonly kind: 'disk' | 's3';
  /** Streams `body` to `key` atomically: readers see the old bytes or the new, never a mix. */
  put(key: string, body: Readable, options?: PutOptions): Promise<StoredBlob>;
  /** The bytes of `key` (or of a range of it); undefined when there is no such blob. */
  get(key: string, range?: ByteRange): Promise<Readable | undefined>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Every blob whose key starts with `prefix` + '/', in no particular order. */
  list(prefix: string): AsyncIterable<BlobInfo>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  /**
   * Makes `to` hold the bytes of `from` without copying them where the backend can (a hard link
   * on disk, a server-side copy on S3). `to` must not exist yet.
   */
  link(from: string, to: string): Promise<void>;
  /**
   * Atomically replaces `to` with a copy of `from` (temp + fsync + rename + directory fsync on
   * disk), refusing with INTEGRITY_FAILED, and changing nothing, when the copy's sha256 is not
   * `expectedSha256`. `beforeCommit` as for put.
   */
  copyReplace(
    from: string,
    to: string,
    options?: { expectedSha256?: string } & Pick<PutOptions, 'beforeCommit' | 'contentType'>,
  ): Promise<StoredBlob>;
  /**
   * A URL that downloads `key` straight from the backend, without credentials, until ttl passes
   * (an S3 presigned GET). Absent where the backend cannot sign (disk).
   */
  downloadUrl?(key: string, options: DownloadUrlOptions): Promise<string>;
  /** Throws STORAGE_UNAVAILABLE unless the storage can be reached and written now (readiness). */
  ping(): Promise<void>;
  /** Removes temporary files a crash left behind; returns how many. Run at start-up. */
  removeLeftovers(): Promise<number>;
  /** Releases connections (the S3 client's keep-alive sockets); nothing for disk. */
  close(): Promise<void>;
}
