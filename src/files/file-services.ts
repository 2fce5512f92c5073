import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { BlobStorage } from '../storage/blob-storage.ts';
import type { FileCatalog } from '../store/file-catalog-types.ts';
import { AuditTrail, type OutcomeObserver } from './audit-trail.ts';
import { BackupService } from './backup-service.ts';
import { FileService } from './file-service.ts';
import { createFileUrls, type FileUrls } from './file-urls.ts';
import type { FileLocks } from '../storage/file-locks.ts';
import { RestoreService } from './restore-service.ts';
import { Retention } from './retention.ts';
import { LinkSigner } from './signed-links.ts';

export interface FileServices {
  files: FileService;
  backups: BackupService;
  restores: RestoreService;
  linkSigner: LinkSigner | undefined;
  fileUrls: FileUrls;
  retention: Retention;
  /** Writes the audit log (the services above do) and reads it. */
  audit: AuditTrail;
}

/** The file, backup and restore services over one blob storage, sharing one set of per-file locks. */
export function createFileServices(
  blobs: BlobStorage,
  locks: FileLocks,
  catalog: FileCatalog,
  { files: config, storage, publicBaseUrl }: Pick<Config, 'files' | 'storage' | 'publicBaseUrl'>,
  logger: Logger,
  observe?: OutcomeObserver,
): FileServices {
  const audit = new AuditTrail(catalog, logger, Date.now, observe);
  const shared = { blobs, catalog, locks, audit };
  // On S3 the secret is optional (presigned links need none); links already handed out stay valid.
  const linkSigner = config.urlSigning && config.urlSecret !== undefined ? new LinkSigner(config.urlSecret, config.urlTtlSeconds) : undefined;
  return {
    files: new FileService({ ...shared, maxFileBytes: config.maxFileBytes }),
    backups: new BackupService(shared),
    restores: new RestoreService(shared),
    linkSigner,
    fileUrls: createFileUrls({ publicBaseUrl, files: config, storage, blobs, linkSigner }),
    retention: new Retention(blobs, catalog, { keepLast: config.backupKeepLast, keepDays: config.backupKeepDays, versionKeepDays: config.versionKeepDays }, logger),
    audit,
  };
}
