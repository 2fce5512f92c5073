import type { ApprovalServices } from '../../../approvals/approval-services.ts';
import type { HeldBackupLocks } from '../../../approvals/held-backup-locks.ts';
import type { HeldRestores } from '../../../approvals/held-restores.ts';
import type { PolicyService } from '../../../approvals/policy-service.ts';
import type { ProposalService } from '../../../approvals/proposal-service.ts';
import { AdminNames } from '../../../files/admin-names.ts';
import type { ArchiveService } from '../../../files/archive/archive-service.ts';
import type { AuditTrail } from '../../../files/audit-trail.ts';
import type { BackupLocks } from '../../../files/backup-locks.ts';
import type { BackupService } from '../../../files/backup-service.ts';
import { ChannelAccess } from '../../../files/channel-access.ts';
import type { ChannelChanges } from '../../../files/channel-changes.ts';
import type { DeletedFiles } from '../../../files/deleted-files.ts';
import type { FileService } from '../../../files/file-service.ts';
import type { FileServices } from '../../../files/file-services.ts';
import type { FileUrls } from '../../../files/file-urls.ts';
import type { RestoreService } from '../../../files/restore-service.ts';
import type { ScopeRestoreService } from '../../../files/scope-restore-service.ts';
import type { LinkSigner } from '../../../files/signed-links.ts';
import type { ResumableUploads } from '../../../files/uploads/resumable-uploads.ts';
import type { AdminNameLookup } from '../../../model/admins.ts';
import type { ChannelLookup, LinkedChannelListing } from '../../../model/channels.ts';

/** What the channel listing, the channel scope and its file, backup, restore and audit routes need: services only. */
export interface FilesRouteDeps {
  access: ChannelAccess;
  files: FileService;
  backups: BackupService;
  backupLocks: BackupLocks;
  restores: RestoreService;
  deleted: DeletedFiles;
  changes: ChannelChanges;
  scopeRestores: ScopeRestoreService;
  /** Folder and channel restores under the policies (docs/approvals.md), and the proposals they become. */
  heldRestores: HeldRestores;
  heldBackupLocks: HeldBackupLocks;
  proposals: ProposalService;
  policies: PolicyService;
  auditLog: Pick<AuditTrail, 'list'>;
  /** The names of the admins that audit events, backups and deleted files name by id. */
  adminNames: AdminNames;
  linkSigner: LinkSigner | undefined;
  /** The URL a restore answers. */
  fileUrls: FileUrls;
  /** Folder and channel ZIP archives (docs/archives.md). */
  archives: ArchiveService;
  /** Resumable (tus) uploads (docs/uploads.md). */
  uploads: ResumableUploads;
}

/** The routes' services: the file services, the gate to channels over the store's channel directory, and admins' names. */
export function filesRouteDeps(
  services: FileServices,
  approvals: Pick<ApprovalServices, 'restores' | 'backupLocks' | 'proposals' | 'policies'>,
  directory: ChannelLookup & LinkedChannelListing & AdminNameLookup,
  archives: ArchiveService,
  uploads: ResumableUploads,
): FilesRouteDeps {
  const { files, backups, backupLocks, restores, scopeRestores, deleted, changes, linkSigner, fileUrls, audit } = services;
  return {
    access: new ChannelAccess(directory, audit),
    files,
    backups,
    backupLocks,
    restores,
    scopeRestores,
    heldRestores: approvals.restores,
    heldBackupLocks: approvals.backupLocks,
    proposals: approvals.proposals,
    policies: approvals.policies,
    deleted,
    changes,
    auditLog: audit,
    adminNames: new AdminNames(directory),
    linkSigner,
    fileUrls,
    archives,
    uploads,
  };
}
