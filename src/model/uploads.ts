import type { Precondition } from './files.ts';
import type { Usage } from './quotas.ts';

/**
 * Resumable uploads (tus 1.0.0, docs/uploads.md). An upload's state lives in the metadata
 * database, so that any instance resumes what another started, after a restart too; its bytes
 * live in the upload staging (src/blobs/staging), apart from every blob a record names, until
 * the completion commits them as the file, exactly as a PUT does.
 */

/** One stored part of an S3 multipart upload, in order. */
export interface StagedPart {
  size: number;
  etag: string;
}

/** Where an upload's bytes are so far: `offset` of them, all durable (fsynced, or stored parts and tail). */
export interface StagedBytes {
  uploadId: string;
  offset: number;
  /** S3: the multipart upload holding the parts, once the first part was stored. */
  multipartId: string | null;
  parts: StagedPart[];
  /** S3: the bytes after the last part, shorter than a part, kept as an object of their own. */
  tailKey: string | null;
  tailSize: number;
}

/**
 * open: bytes are still coming (or all came and the completion has not committed: it is tried
 * again by the next PATCH or HEAD); done: the file was committed (`etag`); failed: the completion
 * was refused for good (a failed If-Match, a quota), `failure` says why, and its bytes are gone.
 */
export type UploadState = 'open' | 'done' | 'failed';

export interface ResumableUpload extends StagedBytes {
  channelId: string;
  tenantId: string;
  adminId: string;
  folder: string;
  filename: string;
  contentType: string;
  /** The Upload-Metadata header as the creation sent it, answered again by HEAD. */
  metadata: string;
  /** The If-Match / If-None-Match sent with the creation, checked at the completion. */
  precondition: Precondition;
  /** null while deferred (Upload-Defer-Length). */
  length: number | null;
  createdAt: number;
  expiresAt: number;
  state: UploadState;
  /** The file's ETag, once done. */
  etag: string | null;
  failure: { code: string; message: string } | null;
}

export interface UploadRecords {
  /**
   * Records `upload` unless its admin would then have more than `maxPerAdmin` unfinished uploads
   * that have not expired at `now`: false then, and nothing kept. Two racing for the last place
   * may both be refused, never both admitted.
   */
  createUpload(upload: ResumableUpload, maxPerAdmin: number, now: number): Promise<boolean>;
  getUpload(id: string): Promise<ResumableUpload | undefined>;
  /** Saves what a PATCH stored (or a completion decided), and the new expiry. */
  saveUpload(upload: ResumableUpload): Promise<void>;
  deleteUpload(id: string): Promise<void>;
  /** Uploads (any state) whose expiry is at or before `now`, oldest first, at most `limit`. */
  expiredUploads(now: number, limit: number): Promise<ResumableUpload[]>;
  /**
   * What unfinished uploads reserve under the quotas (their length, or their bytes so far while
   * it is deferred; a file each): in the channel and in its tenant, leaving `exceptId` out.
   */
  reservedUsage(channelId: string, tenantId: string, now: number, exceptId?: string): Promise<{ channel: Usage; tenant: Usage }>;
  /** Unfinished uploads not expired at `now`, on every instance, and the bytes they hold so far (metrics). */
  census(now: number): Promise<{ unfinished: number; bytes: number }>;
}
