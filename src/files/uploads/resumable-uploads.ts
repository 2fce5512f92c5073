import { createHash, type Hash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { bodyTooLarge } from '../../blobs/blob-errors.ts';
import type { Appended, UploadStaging } from '../../blobs/staging/upload-staging.ts';
import { AppError, type ErrorCode, isAppError } from '../../errors/app-error.ts';
import type { FileLocks } from '../../locks/file-locks.ts';
import type { Channel } from '../../model/channels.ts';
import type { Precondition } from '../../model/files.ts';
import type { QuotaRecords } from '../../model/quotas.ts';
import type { ResumableUpload, StagedBytes, UploadRecords } from '../../model/uploads.ts';
import type { Actor } from '../audit-trail.ts';
import { filePath } from '../file-path.ts';
import type { FileService } from '../file-service.ts';
import { entityTagOf } from '../preconditions.ts';
import { roomUnderQuotas } from '../quota-room.ts';
import { uploadContentType } from '../upload-content-type.ts';
import type { UploadTarget } from './upload-metadata.ts';

export interface ResumableUploadsDeps {
  records: UploadRecords;
  staging: UploadStaging;
  files: FileService;
  locks: FileLocks;
  catalog: Pick<QuotaRecords, 'channelQuotas' | 'channelUsage' | 'tenantUsage'>;
  /** MAX_FILE_BYTES */
  maxFileBytes: number;
  /** UPLOAD_EXPIRY: how long an upload lives past its creation or its last PATCH. */
  expirySeconds: number;
  /** UPLOADS_MAX_PER_ADMIN: unfinished uploads one admin may have. */
  maxPerAdmin: number;
  now?: () => number;
}

export interface NewUpload {
  target: UploadTarget;
  /** The whole metadata header, answered back by HEAD. */
  metadata: string;
  /** Upload-Length; null with Upload-Defer-Length: 1. */
  length: number | null;
  /** If-Match / If-None-Match, checked at the completion as a PUT checks them. */
  precondition: Precondition;
}

export interface Patch {
  /** Upload-Offset: where the client thinks the upload stands. */
  offset: number;
  body: AsyncIterable<Uint8Array>;
  /** Upload-Checksum (sha256 only): the digest the PATCH's bytes must have. */
  sha256?: Buffer | undefined;
  /** Upload-Length sent now, for an upload whose length was deferred. */
  length?: number | undefined;
}

/** How many in-process running hashes are kept (a few hundred bytes each), the oldest dropped first. */
const MAX_RUNNING_HASHES = 10_000;
/** How long a HEAD waits for a PATCH under way to save what it has received (status). */
const HEAD_WAIT_MS = 2000;
/** Expired uploads reclaimed per round. */
const EXPIRY_BATCH = 100;

/**
 * Resumable uploads, tus 1.0.0 (docs/uploads.md): created in a channel by a signed-in admin, bound
 * to that admin, channel, folder and file name, appended to by PATCHes that any instance may take
 * (their state is in the metadata database, and one upload's PATCHes are serialised by the file
 * locks), and made the file, exactly as a PUT makes it, by the commit that ends the last one.
 * Until then the bytes are in the staging, where nothing that cleans up blobs reaches them.
 */
export class ResumableUploads {
  private readonly now: () => number;
  /** The sha256 of each upload's bytes so far, where this instance saw every one of them: no re-read at completion. */
  private readonly running = new Map<string, { offset: number; hash: Hash }>();

  constructor(private readonly deps: ResumableUploadsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Creates an upload; with `first`, stores its first bytes as the creation's body (creation-with-upload). */
  async create(
    channel: Channel,
    actor: Actor & { adminId: string },
    request: NewUpload,
    first?: Omit<Patch, 'offset'>,
  ): Promise<ResumableUpload> {
    const { target, length } = request;
    const path = filePath(target.folder, target.filename);
    const contentType = uploadContentType(target.contentType, path.filename);
    if (length !== null && length > this.deps.maxFileBytes) throw bodyTooLarge(this.deps.maxFileBytes);
    const now = this.now();
    // The length is reserved from now on: an upload that could not complete is refused before its first byte.
    await roomUnderQuotas(this.deps.catalog, channel.id, length ?? 0, this.reservations(channel.id, now));
    const uploadId = randomBytes(16).toString('hex');
    const staged = await this.deps.staging.begin(uploadId);
    const upload: ResumableUpload = {
      ...staged,
      channelId: channel.id,
      tenantId: channel.tenantId,
      adminId: actor.adminId,
      folder: path.folder,
      filename: path.filename,
      contentType,
      metadata: request.metadata,
      precondition: request.precondition,
      length,
      createdAt: now,
      expiresAt: now + this.deps.expirySeconds * 1000,
      state: 'open',
      etag: null,
      failure: null,
    };
    if (!(await this.deps.records.createUpload(upload, this.deps.maxPerAdmin, now))) {
      await this.deps.staging.discard(staged);
      throw new AppError(
        'RATE_LIMITED',
        `This admin has ${this.deps.maxPerAdmin} unfinished uploads, as many as one may have (UPLOADS_MAX_PER_ADMIN): finish, terminate or let one expire first`,
        { retryAfterSeconds: 60 },
      );
    }
    if (length === 0) return this.locked(upload.uploadId, () => this.complete(channel, actor, upload));
    if (first === undefined) return upload;
    try {
      return await this.append(channel, actor, upload.uploadId, { ...first, offset: 0 });
    } catch (error) {
      // Its Location was never answered: nobody could resume it, so it goes now rather than at its expiry.
      await this.terminate(channel, actor, upload.uploadId).catch(() => undefined);
      throw error;
    }
  }

  /**
   * The upload as it stands (HEAD); one whose bytes all came but whose completion failed is
   * completed now. Asked under the upload's lock, for a while: a PATCH whose connection was just
   * cut is still saving what it received, and the offset answered must count it, or the client
   * would send those bytes again. A PATCH still receiving is not waited for past HEAD_WAIT_MS:
   * the answer is then where its last save left the upload.
   */
  async status(channel: Channel, actor: Actor & { adminId: string }, uploadId: string): Promise<ResumableUpload> {
    const upload = this.ownCheck(await this.deps.records.getUpload(uploadId), channel, actor);
    if (upload.state !== 'open') return upload;
    const underLock = this.locked(uploadId, async () => {
      const current = this.ownCheck(await this.deps.records.getUpload(uploadId), channel, actor);
      return current.state === 'open' && current.length !== null && current.offset === current.length
        ? this.complete(channel, actor, current)
        : current;
    });
    const waiting = new AbortController();
    const busy = sleep(HEAD_WAIT_MS, undefined, { signal: waiting.signal }).catch(() => undefined);
    const answered = await Promise.race([underLock, busy]).finally(() => waiting.abort());
    if (answered !== undefined) return answered;
    underLock.catch(() => undefined);
    return this.ownCheck(await this.deps.records.getUpload(uploadId), channel, actor);
  }

  /** Appends a PATCH's bytes at `patch.offset`, which must be where the upload stands; completes the upload with its last byte. */
  append(channel: Channel, actor: Actor & { adminId: string }, uploadId: string, patch: Patch): Promise<ResumableUpload> {
    return this.locked(uploadId, async () => {
      const upload = this.ownCheck(await this.deps.records.getUpload(uploadId), channel, actor);
      if (patch.offset !== upload.offset) {
        throw new AppError(
          'UPLOAD_OFFSET_MISMATCH',
          `The upload stands at ${upload.offset} bytes, not ${patch.offset}: ask with HEAD and send from there`,
          { offset: upload.offset },
        );
      }
      if (upload.state === 'done') return upload;
      const length = await this.lengthOf(channel, upload, patch.length);
      const declared = { ...upload, length };
      const limit = await this.limitOf(channel, declared);
      const running = this.runningHash(upload);
      const patchHash = patch.sha256 === undefined ? undefined : createHash('sha256');
      const appended = await this.deps.staging.append(declared, metered(patch.body, limit, [patchHash, running]));
      const refusal = refusalOf(appended, patchHash, patch.sha256);
      if (refusal !== undefined) {
        await this.deps.staging.forget(upload, appended.staged).catch(() => undefined);
        throw refusal;
      }
      const saved: ResumableUpload = { ...declared, ...appended.staged, expiresAt: this.now() + this.deps.expirySeconds * 1000 };
      await this.deps.records.saveUpload(saved);
      await this.deps.staging.forget(saved, upload).catch(() => undefined);
      this.keepRunning(uploadId, saved.offset, running);
      // The client went away: what it sent is kept. Nobody is left to answer, and a cut is what
      // this protocol is for, not a failure: the request ends as any other, and its log line says 204.
      if (appended.interrupted !== undefined) return saved;
      if (saved.length !== null && saved.offset === saved.length) return this.complete(channel, actor, saved);
      return saved;
    });
  }

  /** Ends an upload and removes its bytes (termination). */
  terminate(channel: Channel, actor: Actor & { adminId: string }, uploadId: string): Promise<void> {
    return this.locked(uploadId, async () => {
      const upload = this.ownCheck(await this.deps.records.getUpload(uploadId), channel, actor, { failed: 'answer' });
      await this.deps.staging.discard(upload);
      await this.deps.records.deleteUpload(uploadId);
      this.running.delete(uploadId);
    });
  }

  /** Releases the staging's connections (S3). */
  close(): Promise<void> {
    return this.deps.staging.close();
  }

  /** Removes expired uploads and their bytes; answers how many. Run every few minutes, on any instance. */
  async expire(): Promise<number> {
    let removed = 0;
    for (const upload of await this.deps.records.expiredUploads(this.now(), EXPIRY_BATCH)) {
      removed += await this.locked(upload.uploadId, async () => {
        const current = await this.deps.records.getUpload(upload.uploadId);
        if (current === undefined || current.expiresAt > this.now()) return 0;
        await this.deps.staging.discard(current);
        await this.deps.records.deleteUpload(current.uploadId);
        this.running.delete(current.uploadId);
        return 1;
      });
    }
    return removed;
  }

  /**
   * The completion: the staged bytes become the file, under the file's lock, with the If-Match the
   * creation sent and the quotas checked as a PUT checks them, and one audit entry. A refusal
   * (4xx) ends the upload for good, its bytes removed; any other failure leaves it to be completed
   * again by the next PATCH or HEAD.
   */
  private async complete(channel: Channel, actor: Actor, upload: ResumableUpload): Promise<ResumableUpload> {
    const kept = this.running.get(upload.uploadId);
    const sha256 = kept !== undefined && kept.offset === upload.offset ? kept.hash.copy().digest('hex') : undefined;
    try {
      const { file } = await this.deps.files.putStaged(
        channel,
        actor,
        {
          path: { folder: upload.folder, filename: upload.filename },
          contentType: upload.contentType,
          precondition: upload.precondition,
          bytes: upload.offset,
          reservedBy: upload.uploadId,
        },
        (blobKey, servedAs) => this.deps.staging.finish(upload, blobKey, { servedAs, sha256 }),
      );
      const done: ResumableUpload = { ...upload, state: 'done', etag: entityTagOf(file) };
      await this.deps.records.saveUpload(done);
      this.running.delete(upload.uploadId);
      await this.deps.staging.discard(upload).catch(() => undefined);
      return done;
    } catch (error) {
      if (!isAppError(error) || error.status >= 500) throw error;
      const failed: ResumableUpload = { ...upload, state: 'failed', failure: { code: error.code, message: error.message } };
      await this.deps.records.saveUpload(failed);
      this.running.delete(upload.uploadId);
      await this.deps.staging.discard(upload).catch(() => undefined);
      throw error;
    }
  }

  /** The upload's length once this PATCH is taken: a deferred one declared now is checked as a creation's is. */
  private async lengthOf(channel: Channel, upload: ResumableUpload, sent: number | undefined): Promise<number | null> {
    if (sent === undefined) return upload.length;
    if (upload.length !== null) {
      if (sent === upload.length) return sent;
      throw new AppError('VALIDATION_FAILED', `Upload-Length is ${upload.length} already, and cannot change`);
    }
    if (sent < upload.offset)
      throw new AppError('VALIDATION_FAILED', `Upload-Length ${sent} is less than the ${upload.offset} bytes stored`);
    if (sent > this.deps.maxFileBytes) throw bodyTooLarge(this.deps.maxFileBytes);
    await roomUnderQuotas(this.deps.catalog, channel.id, sent, this.reservations(channel.id, this.now(), upload.uploadId));
    return sent;
  }

  /** The most bytes this PATCH may carry: to the length, or while it is deferred to what MAX_FILE_BYTES and the quotas leave. */
  private async limitOf(channel: Channel, upload: ResumableUpload): Promise<{ bytes: number; refuse: (at: number) => never }> {
    if (upload.length !== null) {
      return {
        bytes: upload.length - upload.offset,
        refuse: () => {
          throw new AppError(
            'PAYLOAD_TOO_LARGE',
            `This PATCH carries more than the ${upload.length! - upload.offset} bytes the upload's length leaves`,
          );
        },
      };
    }
    const room = await roomUnderQuotas(
      this.deps.catalog,
      channel.id,
      upload.offset,
      this.reservations(channel.id, this.now(), upload.uploadId),
    );
    const most = room === null ? this.deps.maxFileBytes : Math.min(this.deps.maxFileBytes, room.bytes);
    return {
      bytes: most - upload.offset,
      refuse: (at) => {
        if (room !== null && room.bytes < this.deps.maxFileBytes) room.refuse(at);
        throw bodyTooLarge(this.deps.maxFileBytes);
      },
    };
  }

  private reservations(channelId: string, now: number, exceptId?: string) {
    return (tenantId: string) => this.deps.records.reservedUsage(channelId, tenantId, now, exceptId);
  }

  /** A copy of the running hash when this instance saw every byte so far; undefined otherwise (read again at completion). */
  private runningHash(upload: StagedBytes): Hash | undefined {
    const kept = this.running.get(upload.uploadId);
    if (kept !== undefined && kept.offset === upload.offset) return kept.hash.copy();
    return upload.offset === 0 ? createHash('sha256') : undefined;
  }

  private keepRunning(uploadId: string, offset: number, hash: Hash | undefined): void {
    this.running.delete(uploadId);
    if (hash === undefined) return;
    if (this.running.size >= MAX_RUNNING_HASHES) this.running.delete(this.running.keys().next().value as string);
    this.running.set(uploadId, { offset, hash });
  }

  /** One upload's requests, one at a time on every instance (the file locks, under a key of the upload's own). */
  private locked<T>(uploadId: string, work: () => Promise<T>): Promise<T> {
    return this.deps.locks.runExclusive(`uploads/${uploadId}`, work);
  }

  /**
   * The upload, when it is the caller's in this channel and has not expired: otherwise 404, the
   * same for every case, so that an upload URL is useless to anyone else. One whose completion was
   * refused answers that refusal again (termination, `failed: 'answer'`, may still remove it).
   */
  private ownCheck(
    upload: ResumableUpload | undefined,
    channel: Channel,
    actor: Actor & { adminId: string },
    options: { failed?: 'answer' } = {},
  ): ResumableUpload {
    if (upload === undefined || upload.channelId !== channel.id || upload.adminId !== actor.adminId || upload.expiresAt <= this.now()) {
      throw new AppError('UPLOAD_NOT_FOUND', 'No such upload of this admin in this channel: it expired, was terminated, or never existed');
    }
    if (upload.state === 'failed' && upload.failure !== null && options.failed !== 'answer') {
      throw new AppError(upload.failure.code as ErrorCode, `This upload ended without a file: ${upload.failure.message}`);
    }
    return upload;
  }
}

/**
 * The body, counted against `limit` and hashed as it passes. Past the limit the chunk that goes
 * beyond is refused before it is stored (an AppError, which the append answers as the failure).
 */
async function* metered(
  body: AsyncIterable<Uint8Array>,
  limit: { bytes: number; refuse: (at: number) => never },
  hashes: (Hash | undefined)[],
): AsyncIterable<Uint8Array> {
  let received = 0;
  for await (const chunk of body) {
    received += chunk.length;
    if (received > limit.bytes) limit.refuse(received);
    for (const hash of hashes) hash?.update(chunk);
    yield chunk;
  }
}

/** Why an append's bytes must not count: a refusal of ours, or a checksum they do not have. */
function refusalOf(appended: Appended, patchHash: Hash | undefined, expected: Buffer | undefined): AppError | undefined {
  const { interrupted } = appended;
  if (isAppError(interrupted)) return interrupted;
  if (patchHash === undefined || expected === undefined) return undefined;
  // A checked PATCH counts whole or not at all: one cut short cannot be checked.
  if (interrupted !== undefined)
    return new AppError('UPLOAD_CHECKSUM_MISMATCH', 'The PATCH ended early: its checksum cannot be checked, and none of its bytes count');
  const actual = patchHash.digest();
  if (actual.equals(expected)) return undefined;
  return new AppError(
    'UPLOAD_CHECKSUM_MISMATCH',
    `The PATCH's bytes have the sha256 ${actual.toString('base64')}, not ${expected.toString('base64')} as Upload-Checksum says: none of them count`,
  );
}
