import type { Logger } from 'pino';
import type { FilesConfig } from '../config/config.ts';
import type { BlobStorage } from '../storage/blob-storage.ts';
import type { FileCatalog } from '../store/file-catalog-types.ts';
import { AuditTrail, type OutcomeObserver } from './audit-trail.ts';
import { BackupService } from './backup-service.ts';
import { FileService } from './file-service.ts';
import type { FileLocks } from '../storage/file-locks.ts';
import { RestoreService } from './restore-service.ts';
import { Retention } from './retention.ts';
import { LinkSigner } from './signed-links.ts';

export interface FileServices {
  files: FileService;
  backups: BackupService;
  restores: RestoreService;
  linkSigner: LinkSigner | undefined;
  retention: Retention;
}

/** The file, backup and restore services over one blob storage, sharing one set of per-file locks. */
export function createFileServices(blobs: BlobStorage, locks: FileLocks, catalog: FileCatalog, config: FilesConfig, logger: Logger, observe?: OutcomeObserver): FileServices {
  const audit = new AuditTrail(catalog, logger, Date.now, observe);
  const shared = { blobs, catalog, locks, audit };
  return {
    files: new FileService({ ...shared, maxFileBytes: config.maxFileBytes }),
    backups: new BackupService(shared),
    restores: new RestoreService(shared),
    linkSigner: config.urlSigning ? new LinkSigner(config.urlSecret!, config.urlTtlSeconds) : undefined,
    retention: new Retention(blobs, catalog, { keepLast: config.backupKeepLast, keepDays: config.backupKeepDays, versionKeepDays: config.versionKeepDays }, logger),
  };
}
