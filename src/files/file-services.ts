import type { BlobStorage } from '../blobs/blob-storage.ts';
import { openBlobStorage } from '../blobs/open-blob-storage.ts';
import type { Config } from '../config/config.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import { openFileLocks } from '../locks/open-file-locks.ts';
import type { Logger } from '../logging/logger.ts';
import type { FileCatalog } from '../model/metadata-store.ts';
import { AuditTrail, type OutcomeObserver } from './audit-trail.ts';
import { BackupLocks } from './backup-locks.ts';
import { BackupService } from './backup-service.ts';
import { ChannelChanges } from './channel-changes.ts';
import { DeletedFiles } from './deleted-files.ts';
import { FileService, type FileServiceDeps } from './file-service.ts';
import { createFileUrls, type FileUrls } from './file-urls.ts';
import { canPublish, PublicCopies } from './public-copies.ts';
import { RestoreService } from './restore-service.ts';
import { type BlobReleaseGuard, Retention } from './retention.ts';
import { ScopeRestoreService } from './scope-restore-service.ts';
import { LinkSigner } from './signed-links.ts';
import { recoverInterruptedWrites, settleJournal } from './write-journal.ts';

export interface FileServices {
  files: FileService;
  backups: BackupService;
  /** Deleting backups and changing their locks (docs/backup-locks.md). */
  backupLocks: BackupLocks;
  restores: RestoreService;
  /** Restores of a folder or a whole channel, over the single-file restores and deletes. */
  scopeRestores: ScopeRestoreService;
  linkSigner: LinkSigner | undefined;
  fileUrls: FileUrls;
  retention: Retention;
  deleted: DeletedFiles;
  changes: ChannelChanges;
  /** Writes the audit log (the services above do) and reads it. */
  audit: AuditTrail;
  /** Removes the bytes of writes never recorded, older than `startedBefore` (write-journal.ts). */
  settleJournal(startedBefore: number): Promise<number>;
  /** With S3_PUBLIC_BASE_URL: brings every public copy still behind its record in line (public-copies.ts). */
  catchUpPublicCopies: (() => Promise<number>) | undefined;
}

/** The services with the storage they opened; close() releases it (S3 sockets, lock connections). */
export interface OpenedFileServices extends FileServices {
  blobs: BlobStorage;
  /** The per-file locks the services share, for what writes beside them (resumable uploads). */
  locks: FileLocks;
  close(): Promise<void>;
}

export type FileServicesConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'storage' | 'files' | 'publicBaseUrl'>;

export interface OpenFileServicesOptions {
  /**
   * Settle what a crash interrupted before the first write (write-journal.ts). The server does;
   * the CLI, a short-lived guest beside it, leaves that to the server.
   */
  recover: boolean;
  /** Told the outcome of every audited operation (metrics). */
  observe?: OutcomeObserver;
  /** With an off-site copy: retention removes a blob only once the target holds it (retention.ts). */
  blobReleaseGuard?: BlobReleaseGuard;
  /** What unfinished resumable uploads reserve under the quotas, which uploads count as used (docs/uploads.md). */
  reservations?: FileServiceDeps['reservations'];
}

/**
 * Opens what the file services run on — the blob storage of STORAGE and DATA_DIR, the per-file
 * locks shared with every other process on the same metadata — and the services over them; the
 * server, the CLI and the crash tests' worker all open them here.
 */
export async function openFileServices(
  config: FileServicesConfig,
  catalog: FileCatalog,
  logger: Logger,
  options: OpenFileServicesOptions,
): Promise<OpenedFileServices> {
  const blobs = await openBlobStorage(config);
  const locks = await openFileLocks(config, logger).catch(async (error: unknown) => {
    await blobs.close();
    throw error;
  });
  const services = createFileServices(blobs, locks, catalog, config, logger, options);
  try {
    if (options.recover) {
      await recoverInterruptedWrites({ blobs, catalog, locks, logger });
      await services.catchUpPublicCopies?.();
    }
  } catch (error) {
    await blobs.close();
    await locks.close();
    throw error;
  }
  return {
    ...services,
    blobs,
    locks,
    async close() {
      await blobs.close();
      await locks.close();
    },
  };
}

/** The file, backup and restore services over one blob storage, sharing one set of per-file locks. */
function createFileServices(
  blobs: BlobStorage,
  locks: FileLocks,
  catalog: FileCatalog,
  { files: config, storage, publicBaseUrl }: FileServicesConfig,
  logger: Logger,
  { observe, blobReleaseGuard, reservations }: Pick<OpenFileServicesOptions, 'observe' | 'blobReleaseGuard' | 'reservations'>,
): FileServices {
  const audit = new AuditTrail(catalog, logger, Date.now, observe);
  const publicCopies = storage.s3?.publicBaseUrl !== undefined && canPublish(blobs) ? new PublicCopies(blobs, catalog, logger) : undefined;
  const shared = { blobs, catalog, locks, audit, publicCopies };
  // On S3 the secret is optional (presigned links need none); links already handed out stay valid.
  const linkSigner =
    config.urlSigning && config.urlSecret !== undefined ? new LinkSigner(config.urlSecret, config.urlTtlSeconds) : undefined;
  const files = new FileService({ ...shared, maxFileBytes: config.maxFileBytes, reservations });
  const backups = new BackupService(shared);
  const restores = new RestoreService(shared);
  return {
    files,
    backups,
    backupLocks: new BackupLocks({ catalog, audit, maxDays: config.backupLockMaxDays }),
    restores,
    scopeRestores: new ScopeRestoreService({ catalog, audit, files, backups, restores }),
    linkSigner,
    fileUrls: createFileUrls({ publicBaseUrl, files: config, storage, blobs, linkSigner }),
    retention: new Retention(
      blobs,
      catalog,
      { keepLast: config.backupKeepLast, keepDays: config.backupKeepDays, versionKeepDays: config.versionKeepDays },
      logger,
      Date.now,
      blobReleaseGuard,
    ),
    deleted: new DeletedFiles(catalog),
    changes: new ChannelChanges(catalog),
    audit,
    settleJournal: (startedBefore) => settleJournal({ blobs, catalog, locks, logger }, startedBefore),
    catchUpPublicCopies: publicCopies && (() => publicCopies.catchUp(locks)),
  };
}
