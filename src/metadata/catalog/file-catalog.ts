import type { Kysely } from 'kysely';
import type { FileCatalog } from '../../model/metadata-store.ts';
import type { DurableTransaction } from '../durable-transaction.ts';
import { inTransaction } from '../in-transaction.ts';
import { type LegacySpellings, legacySpellings } from '../legacy-spellings.ts';
import type { Database } from '../schema.ts';
import { auditLog } from './audit-log.ts';
import { backups } from './backups.ts';
import { channelHistory } from './history.ts';
import { keptVersions } from './kept-versions.ts';
import { liveFiles } from './live-files.ts';
import { quotaRecords } from './quota-records.ts';
import { writeJournal } from './write-journal.ts';

/**
 * The file catalog: its parts side by side on the metadata's database, as the store composes its
 * own. A folder named in a listing, a count, the changes or the audit log's filter covers every
 * spelling of it an older release stored (legacy-spellings.ts): they look the same.
 */
export function fileCatalog(
  db: Kysely<Database>,
  durably: DurableTransaction = (work) => inTransaction(db, work),
  spellings: LegacySpellings = legacySpellings(db),
): FileCatalog {
  return {
    ...liveFiles(db, spellings),
    ...keptVersions(db, spellings),
    ...backups(db, durably),
    ...channelHistory(db, spellings),
    ...writeJournal(db),
    ...auditLog(db, spellings),
    ...quotaRecords(db),
  };
}
