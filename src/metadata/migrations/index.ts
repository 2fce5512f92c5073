import type { Migration, MigrationProvider } from 'kysely';
import * as initialSchema from './001-initial-schema.ts';
import * as filesBackupsAudit from './002-files-backups-audit.ts';
import * as auditFilterIndexes from './003-audit-filter-indexes.ts';
import * as versionCreatedBy from './004-version-created-by.ts';
import * as channelHistory from './005-channel-history.ts';
import * as clockTicks from './006-clock-ticks.ts';
import * as historyLookups from './007-history-lookups.ts';
import * as sessions from './008-sessions.ts';
import * as auditOperations from './009-audit-operations.ts';
import * as clockTickTime from './010-clock-tick-time.ts';
import * as immutableBlobs from './011-immutable-blobs.ts';
import * as backupOrigin from './012-backup-origin.ts';
import * as auditInstant from './013-audit-instant.ts';
import * as demoSeeding from './014-demo-seeding.ts';
import * as legacySpellings from './015-legacy-spellings.ts';
import * as selfService from './016-self-service.ts';
import * as backupLocks from './017-backup-locks.ts';
import * as auditChain from './018-audit-chain.ts';
import * as approvals from './019-approvals.ts';
import * as completeHistory from './020-complete-history.ts';
import * as heldInvitationTokens from './021-held-invitation-tokens.ts';
import * as offsiteCopies from './022-offsite-copies.ts';
import * as eventsOut from './023-events-out.ts';
import * as tenantOffsite from './024-tenant-offsite.ts';
import * as readHolds from './025-read-holds.ts';
import * as quotas from './026-quotas.ts';
import * as resumableUploads from './027-resumable-uploads.ts';

/**
 * Every migration, listed in code rather than read from a folder at run time, so the set is the
 * same under tsx, a bundle or a compiled build. Names sort in the order they must run.
 */
const migrations: Record<string, Migration> = {
  '001-initial-schema': initialSchema,
  '002-files-backups-audit': filesBackupsAudit,
  '003-audit-filter-indexes': auditFilterIndexes,
  '004-version-created-by': versionCreatedBy,
  '005-channel-history': channelHistory,
  '006-clock-ticks': clockTicks,
  '007-history-lookups': historyLookups,
  '008-sessions': sessions,
  '009-audit-operations': auditOperations,
  '010-clock-tick-time': clockTickTime,
  '011-immutable-blobs': immutableBlobs,
  '012-backup-origin': backupOrigin,
  '013-audit-instant': auditInstant,
  '014-demo-seeding': demoSeeding,
  '015-legacy-spellings': legacySpellings,
  '016-self-service': selfService,
  '017-backup-locks': backupLocks,
  '018-audit-chain': auditChain,
  '019-approvals': approvals,
  '020-complete-history': completeHistory,
  '021-held-invitation-tokens': heldInvitationTokens,
  '022-offsite-copies': offsiteCopies,
  '023-events-out': eventsOut,
  '024-tenant-offsite': tenantOffsite,
  '025-read-holds': readHolds,
  '026-quotas': quotas,
  '027-resumable-uploads': resumableUploads,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};

export const migrationNames: readonly string[] = Object.keys(migrations);
