import type { Readable } from 'node:stream';
import { AppError } from '../errors/app-error.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import type { BlobStorage, ByteRange } from '../storage/blob-storage.ts';
import { safeSegment } from '../storage/safe-path.ts';
import type { FileCatalog, FileRecord, FileVersion, FolderSummary, Page, PageRequest } from '../store/file-catalog-types.ts';
import type { Channel } from '../store/types.ts';
import type { Actor, AuditTrail } from './audit-trail.ts';
import { fileLockKey } from './blob-layout.ts';
import { downloadDisposition } from './download-disposition.ts';
import { exactLength } from './exact-length.ts';
import type { FilePath } from './file-path.ts';
import { type LiveWriteDeps, removeLiveFile, replaceLiveFile } from './live-writes.ts';
import { checkPrecondition, type MatchPrecondition, type Precondition } from './preconditions.ts';
import type { PublicCopies } from './public-copies.ts';

export interface FileServiceDeps {
  blobs: BlobStorage;
  catalog: FileCatalog;
  locks: FileLocks;
  audit: AuditTrail;
  maxFileBytes: number;
  now?: () => number;
  /** With S3_PUBLIC_BASE_URL (public-copies.ts). */
  publicCopies?: PublicCopies | undefined;
}

/** Live files of channel folders: upload, download, list, delete — every replaced byte kept as a version. */
export class FileService {
  private readonly live: LiveWriteDeps;
  constructor(private readonly deps: FileServiceDeps) {
    this.live = { blobs: deps.blobs, catalog: deps.catalog, now: deps.now ?? Date.now, publicCopies: deps.publicCopies };
  }

  async put(
    channel: Channel,
    actor: Actor,
    path: FilePath,
    body: Readable,
    contentType: string,
    precondition: Precondition = {},
  ): Promise<{ created: boolean; file: FileRecord }> {
    return this.deps.audit.around(channel, actor, 'upload', path, () =>
      this.deps.locks.runExclusive(fileLockKey(channel.id, path.folder, path.filename), async () => {
        // Checked against the record read under the lock: of two writers with one If-Match, one wins.
        const current = await this.deps.catalog.getFile(channel.id, path.folder, path.filename);
        checkPrecondition(precondition, current);
        const servedAs = { contentType, contentDisposition: downloadDisposition(path.filename, contentType) };
        const { file, created } = await replaceLiveFile(this.live, current, channel.id, path, contentType, (blobKey) =>
          this.deps.blobs.put(blobKey, body, { maxBytes: this.deps.maxFileBytes, ...servedAs }),
        );
        return { value: { created, file }, details: { sha256: file.sha256, bytes: file.size } };
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

  list(channel: Channel, folder: string, page: PageRequest): Promise<Page<FileRecord>> {
    return this.deps.catalog.listFiles(channel.id, safeSegment(folder, 'folder name'), page);
  }

  /** The channel's folders that hold a live file, by name, with how many. */
  listFolders(channel: Channel, page: PageRequest): Promise<Page<FolderSummary>> {
    return this.deps.catalog.listFolders(channel.id, page);
  }

  /** Every stored version of the file (backups, and what replacements kept), newest first. */
  listVersions(channel: Channel, path: FilePath, page: PageRequest): Promise<Page<FileVersion>> {
    return this.deps.catalog.listVersions(channel.id, path.folder, path.filename, page);
  }

  async delete(channel: Channel, actor: Actor, path: FilePath, precondition: MatchPrecondition = {}): Promise<void> {
    await this.deps.audit.around(channel, actor, 'delete', path, () =>
      this.deps.locks.runExclusive(fileLockKey(channel.id, path.folder, path.filename), async () => {
        const current = await this.deps.catalog.getFile(channel.id, path.folder, path.filename);
        // Before the 404: with If-Match, a missing file is a failed precondition (RFC 9110 §13.1.1).
        checkPrecondition(precondition, current);
        if (current === undefined) throw notFound(path);
        const version = await removeLiveFile(this.live, current, actor.adminId);
        return { value: undefined, details: { versionId: version.id, sha256: current.sha256 } };
      }),
    );
  }

  private async require(channel: Channel, path: FilePath): Promise<FileRecord> {
    const file = await this.deps.catalog.getFile(channel.id, path.folder, path.filename);
    if (file === undefined) throw notFound(path);
    return file;
  }
}

function notFound(path: Pick<FilePath, 'folder' | 'filename'>): AppError {
  return new AppError('FILE_NOT_FOUND', `No file "${path.filename}" in folder "${path.folder}"`);
}
