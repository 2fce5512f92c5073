import type { BackupService } from '../files/backup-service.ts';
import type { FileService } from '../files/file-service.ts';
import type { FileUrls } from '../files/file-urls.ts';
import type { RestoreService } from '../files/restore-service.ts';
import type { LinkSigner } from '../files/signed-links.ts';
import type { FileCatalog } from '../store/file-catalog-types.ts';
import type { MetadataStore } from '../store/types.ts';

/** What the file, backup, restore and audit routes need. */
export interface FilesRouteDeps {
  store: MetadataStore;
  catalog: FileCatalog;
  files: FileService;
  backups: BackupService;
  restores: RestoreService;
  linkSigner: LinkSigner | undefined;
  /** The URL a restore answers. */
  fileUrls: FileUrls;
}
