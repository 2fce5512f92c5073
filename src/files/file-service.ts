import type { Readable } from 'node:stream';
import { bodyTooLarge } from '../blobs/blob-errors.ts';
import type { BlobStorage, ByteRange, PutOptions, ServedAs, StoredBlob } from '../blobs/blob-storage.ts';
import { AppError, isAppError } from '../errors/app-error.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import type { Channel } from '../model/channels.ts';
import type { FileRecord, FolderSummary, LiveFiles, MatchPrecondition, Precondition } from '../model/files.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import type { QuotaRecords, Usage } from '../model/quotas.ts';
import type { FileVersion, KeptVersions } from '../model/versions.ts';
import type { WriteJournal } from '../model/write-journal.ts';
import type { Actor, AuditTrail } from './audit-trail.ts';
import { fileLockKey } from './blob-layout.ts';
import { downloadDisposition } from './download-disposition.ts';
import { exactLength } from './exact-length.ts';
import { FileNames } from './file-names.ts';
import { type FilePath, folderName, type Naming } from './file-path.ts';
import { type CommitRetry, type LiveWriteDeps, removeLiveFile, replaceLiveFile } from './live-writes.ts';
import { checkPrecondition } from './preconditions.ts';
import type { PublicCopies } from './public-copies.ts';
import { roomUnderQuotas } from './quota-room.ts';

export interface FileServiceDeps {
  blobs: BlobStorage;
  catalog: KeptVersions & LiveFiles & WriteJournal & Pick<QuotaRecords, 'channelQuotas' | 'channelUsage' | 'tenantUsage'>;
  locks: FileLocks;
  audit: AuditTrail;
  maxFileBytes: number;
  now?: () => number;
  /** With S3_PUBLIC_BASE_URL (public-copies.ts). */
  publicCopies?: PublicCopies | undefined;
  /** When a failed commit is tried again (live-writes.ts COMMIT_RETRY unless given). */
  commitRetry?: CommitRetry | undefined;
  /** What unfinished resumable uploads reserve under the quotas, leaving out `exceptUploadId`'s own (docs/uploads.md). */
  reservations?: ((channelId: string, tenantId: string, exceptUploadId?: string) => Promise<{ channel: Usage; tenant: Usage }>) | undefined;
}

/**
 * Live files of channel folders: upload, download, list, delete — every replaced byte kept as a
 * version. A file is named as its caller names it, in NFC, and means the file stored under that
 * name or a look-alike spelling an older release stored (file-names.ts).
 */
export class FileService {
  private readonly live: LiveWriteDeps;
  private readonly names: FileNames;
  constructor(private readonly deps: FileServiceDeps) {
    this.live = {
      blobs: deps.blobs,
      catalog: deps.catalog,
      now: deps.now ?? Date.now,
      publicCopies: deps.publicCopies,
      commitRetry: deps.commitRetry,
    };
    this.names = new FileNames(deps.catalog);
  }

  /** Uploads `body` as the file `path` names: the live one (whatever its stored spelling), else a new file of that name. */
  put(
    channel: Channel,
    actor: Actor,
    path: FilePath,
    body: Readable,
    contentType: string,
    precondition: Precondition = {},
    declaredBytes?: number,
  ): Promise<{ created: boolean; file: FileRecord }> {
    return this.write(channel, actor, { path, contentType, precondition, declaredBytes }, (blobKey, limits) =>
      this.deps.blobs.put(blobKey, body, limits),
    );
  }

  /**
   * Makes bytes staged apart (a resumable upload's, src/files/uploads) the file `path` names,
   * exactly as put() does: same lock, same checks, same commit and audit entry. `staged` stores
   * them under the fresh key it is given and answers their size and sha256.
   */
  putStaged(
    channel: Channel,
    actor: Actor,
    target: { path: FilePath; contentType: string; precondition: Precondition; bytes: number; reservedBy: string },
    staged: (blobKey: string, servedAs: ServedAs) => Promise<StoredBlob>,
  ): Promise<{ created: boolean; file: FileRecord }> {
    const { path, contentType, precondition, bytes, reservedBy } = target;
    return this.write(
      channel,
      actor,
      { path, contentType, precondition, declaredBytes: bytes, reservedBy },
      (blobKey, { maxBytes, ...servedAs }) => {
        if (bytes > maxBytes) throw bodyTooLarge(maxBytes);
        return staged(blobKey, servedAs);
      },
    );
  }

  private write(
    channel: Channel,
    actor: Actor,
    request: { path: FilePath; contentType: string; precondition: Precondition; declaredBytes: number | undefined; reservedBy?: string },
    store: (blobKey: string, limits: PutOptions & { maxBytes: number }) => Promise<StoredBlob>,
  ): Promise<{ created: boolean; file: FileRecord }> {
    const { path, contentType, precondition, declaredBytes, reservedBy } = request;
    return this.deps.audit.around(channel, actor, 'upload', path, (entryOf) =>
      this.deps.locks.runExclusive(fileLockKey(channel.id, path.folder, path.filename), async () => {
        // Before a byte is stored: a declared length past a quota is refused here, and a body
        // that keeps coming is cut where the room left ends. The commit checks again, exactly.
        const reserved = this.deps.reservations;
        const reservations = reserved && ((tenantId: string) => reserved(channel.id, tenantId, reservedBy));
        const room = await roomUnderQuotas(this.deps.catalog, channel.id, declaredBytes ?? 0, reservations);
        const maxBytes = room === null ? this.deps.maxFileBytes : Math.min(this.deps.maxFileBytes, room.bytes);
        // Checked against the record read under the lock: of two writers with one If-Match, one wins.
        const named = await this.names.find(channel.id, path, 'requested', precondition.ifMatch);
        const current = named.current;
        checkPrecondition(precondition, current);
        const servedAs = { contentType, contentDisposition: downloadDisposition(named.path.filename, contentType) };
        const { file, created } = await replaceLiveFile(
          this.live,
          current,
          channel.id,
          named.path,
          contentType,
          (blobKey) =>
            store(blobKey, { maxBytes, ...servedAs }).catch((error: unknown) => {
              // The quota, not MAX_FILE_BYTES, set the limit the body passed.
              if (room !== null && maxBytes < this.deps.maxFileBytes && isAppError(error) && error.code === 'PAYLOAD_TOO_LARGE') {
                room.refuse(maxBytes + 1);
              }
              throw error;
            }),
          // versionId: the version the bytes it replaced became; null when it created the file.
          (stored, replacedVersionId) => entryOf({ sha256: stored.sha256, versionId: replacedVersionId }),
          // Checked again at the commit, exactly: the limits and the usage as they are then.
          { withinQuota: true },
        );
        return { value: { created, file }, details: { sha256: file.sha256, bytes: file.size }, recorded: true };
      }),
    );
  }

  async stat(channel: Channel, path: FilePath): Promise<FileRecord> {
    return this.require(channel, path);
  }

  /** The file's record and its bytes (or a range of them), as read() gives them. */
  async get(channel: Channel, path: FilePath, range?: ByteRange): Promise<{ file: FileRecord; body: Readable }> {
    const file = await this.require(channel, path);
    return { file, body: await this.read(file, range) };
  }

  /**
   * The bytes of `file` (a record from stat), or of a range of them: exactly the bytes the record
   * describes, since its blob is never rewritten, and never more or fewer than it declares: a blob
   * of another size is INTEGRITY_FAILED before the first byte, and one that changes while it is
   * read ends the stream with an error (exact-length.ts). FILE_NOT_FOUND when the bytes went
   * meanwhile: replaced since, and the version that took them over pruned.
   */
  async read(file: FileRecord, range?: ByteRange): Promise<Readable> {
    const body = await this.deps.blobs.get(file.blobKey, range, { size: file.size });
    if (body === undefined) throw notFound(file);
    return exactLength(body, range === undefined ? file.size : range.end - range.start + 1);
  }

  /** The folder's live files by name, with those of its look-alike spellings an older release stored. */
  list(channel: Channel, folder: string, page: PageRequest): Promise<Page<FileRecord>> {
    return this.deps.catalog.listFiles(channel.id, folderName(folder), page);
  }

  /** The channel's folders that hold a live file, by name, with how many. */
  listFolders(channel: Channel, page: PageRequest): Promise<Page<FolderSummary>> {
    return this.deps.catalog.listFolders(channel.id, page);
  }

  /** Every stored version of the file (backups, and what replacements kept), newest first. */
  async listVersions(channel: Channel, path: FilePath, page: PageRequest): Promise<Page<FileVersion>> {
    const history = (await this.names.find(channel.id, path, 'requested')).history();
    return this.deps.catalog.listVersions(channel.id, history.folder, history.filename, page);
  }

  /** Deletes the live file `path` names ('stored': a plan's entry, by its spelling exactly). */
  async delete(
    channel: Channel,
    actor: Actor,
    path: FilePath,
    precondition: MatchPrecondition = {},
    naming: Naming = 'requested',
  ): Promise<void> {
    await this.deps.audit.around(channel, actor, 'delete', path, (entryOf) =>
      this.deps.locks.runExclusive(fileLockKey(channel.id, path.folder, path.filename), async () => {
        const { current } = await this.names.find(channel.id, path, naming, precondition.ifMatch);
        // Before the 404: with If-Match, a missing file is a failed precondition (RFC 9110 §13.1.1).
        checkPrecondition(precondition, current);
        if (current === undefined) throw notFound(path);
        const version = await removeLiveFile(this.live, current, actor.adminId, (versionId) =>
          entryOf({ versionId, sha256: current.sha256 }),
        );
        return { value: undefined, details: { versionId: version.id, sha256: current.sha256 }, recorded: true };
      }),
    );
  }

  private async require(channel: Channel, path: FilePath): Promise<FileRecord> {
    const { current } = await this.names.find(channel.id, path, 'requested');
    if (current === undefined) throw notFound(path);
    return current;
  }
}

function notFound(path: Pick<FilePath, 'folder' | 'filename'>): AppError {
  return new AppError('FILE_NOT_FOUND', `No file "${path.filename}" in folder "${path.folder}"`);
}
