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

/** How a backend that serves blobs itself (S3, to a public URL) answers them; recorded with the blob there. */
export interface ServedAs {
  contentType?: string;
  contentDisposition?: string;
}

export interface PutOptions extends ServedAs {
  /** Refuse (PAYLOAD_TOO_LARGE) once more bytes than this arrive; the previous blob stays intact. */
  maxBytes?: number;
}

export interface CopyOptions extends ServedAs {
  /** The sha256 the source must have: INTEGRITY_FAILED, and nothing created, when it has other bytes. */
  expectedSha256: string;
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
  /**
   * The bytes of `key` (or of a range of it); undefined when there is no such blob. `expected.size`:
   * the size the whole blob must have, checked before any byte is read (INTEGRITY_FAILED otherwise).
   */
  get(key: string, range?: ByteRange, expected?: { size: number }): Promise<Readable | undefined>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Every blob whose key starts with `prefix` + '/', in no particular order. */
  list(prefix: string): AsyncIterable<BlobInfo>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  /**
   * Makes the new blob `to` hold the bytes of `from`, checked against `expectedSha256`, without
   * copying them where the backend can (a hard link on disk, a server-side copy on S3), durably.
   * `to` is a key nothing names yet (a fresh one, blob-layout.ts); on disk an existing one is refused.
   */
  copy(from: string, to: string, options: CopyOptions): Promise<StoredBlob>;
  /**
   * Makes `to` a copy of `from` for readers outside the service, replacing what it held (a
   * server-side copy): the public copies of S3_PUBLIC_BASE_URL. Absent where nothing outside the
   * service reads the store (disk).
   */
  publish?(from: string, to: string, servedAs: ServedAs): Promise<void>;
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
