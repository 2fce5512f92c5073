import type { Readable } from 'node:stream';
import { AppError } from '../errors/app-error.ts';
import type { BlobStorage, ByteRange } from '../storage/blob-storage.ts';
import { safeSegment } from '../storage/safe-path.ts';
import type { FileCatalog, FileRecord, Page, PageRequest } from '../store/file-catalog-types.ts';
import type { Channel } from '../store/types.ts';
import type { Actor, AuditTrail } from './audit-trail.ts';
import { liveKey } from './blob-layout.ts';
import type { KeyedMutex } from './keyed-mutex.ts';
import { keepLiveVersion } from './version-keeper.ts';

export interface FileServiceDeps {
  blobs: BlobStorage;
  catalog: FileCatalog;
  locks: KeyedMutex;
  audit: AuditTrail;
  maxFileBytes: number;
  now?: () => number;
}

export interface FilePath {
  folder: string;
  filename: string;
}

/** Checks both segments once, at the edge; everything below takes them as safe. */
export function filePath(folder: string, filename: string): FilePath {
  return { folder: safeSegment(folder, 'folder name'), filename: safeSegment(filename, 'file name') };
}

/** Live files of channel folders: upload, download, list, delete — every replaced byte kept as a version. */
export class FileService {
  private readonly now: () => number;
  constructor(private readonly deps: FileServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async put(channel: Channel, actor: Actor, path: FilePath, body: Readable, contentType: string): Promise<{ created: boolean; file: FileRecord }> {
    const { blobs, catalog, audit } = this.deps;
    const key = liveKey(channel.id, path.folder, path.filename);
    return audit.around(channel, actor, 'upload', path, () =>
      this.deps.locks.runExclusive(key, async () => {
        const current = await catalog.getFile(channel.id, path.folder, path.filename);
        const written = await blobs.put(key, body, {
          maxBytes: this.deps.maxFileBytes,
          beforeCommit: async () => {
            if (current) await keepLiveVersion(blobs, catalog, current, 'replaced', this.now());
          },
        });
        const file: FileRecord = { channelId: channel.id, ...path, size: written.size, sha256: written.sha256, contentType, updatedAt: this.now() };
        const outcome = await catalog.putFile(file);
        return { value: { created: outcome === 'created', file }, details: { sha256: written.sha256 } };
      }),
    );
  }

  async get(channel: Channel, path: FilePath, range?: ByteRange): Promise<{ file: FileRecord; body: Readable }> {
    const file = await this.require(channel, path);
    const body = await this.deps.blobs.get(liveKey(channel.id, path.folder, path.filename), range);
    if (body === undefined) throw notFound(path);
    return { file, body };
  }

  async stat(channel: Channel, path: FilePath): Promise<FileRecord> {
    return this.require(channel, path);
  }

  list(channel: Channel, folder: string, page: PageRequest): Promise<Page<FileRecord>> {
    return this.deps.catalog.listFiles(channel.id, safeSegment(folder, 'folder name'), page);
  }

  async delete(channel: Channel, actor: Actor, path: FilePath): Promise<void> {
    const { blobs, catalog, audit } = this.deps;
    const key = liveKey(channel.id, path.folder, path.filename);
    await audit.around(channel, actor, 'delete', path, () =>
      this.deps.locks.runExclusive(key, async () => {
        const current = await this.require(channel, path);
        const version = await keepLiveVersion(blobs, catalog, current, 'deleted', this.now());
        await catalog.deleteFile(channel.id, path.folder, path.filename);
        await blobs.delete(key);
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

function notFound(path: FilePath): AppError {
  return new AppError('FILE_NOT_FOUND', `No file "${path.filename}" in folder "${path.folder}"`);
}
