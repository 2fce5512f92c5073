import { type Kysely, sql } from 'kysely';
import type { MetadataStore } from '../model/metadata-store.ts';
import { adminChanges } from './admin-changes.ts';
import { adminRecords } from './admin-records.ts';
import { approvalRecords } from './approval-records.ts';
import { fileCatalog } from './catalog/file-catalog.ts';
import { channelRecords } from './channel-records.ts';
import { demoSeedingRecords } from './demo-seeding-records.ts';
import { durableTransaction } from './durable-transaction.ts';
import { eventRecords } from './event-records.ts';
import { inTransaction } from './in-transaction.ts';
import { invitationRecords } from './invitation-records.ts';
import { legacySpellings } from './legacy-spellings.ts';
import { nonceAndRevocationRecords } from './nonce-and-revocation-records.ts';
import { offsiteRecords } from './offsite/offsite-records.ts';
import { tenantOffsiteRecords } from './offsite/tenant-offsite-records.ts';
import { principalLookup } from './principal-lookup.ts';
import { readHoldRecords } from './read-hold-records.ts';
import type { Database, Engine } from './schema.ts';
import { serviceSecrets } from './service-secrets.ts';
import { tenantRecords } from './tenant-records.ts';
import { uploadRecords } from './upload-records.ts';

/**
 * The store is its concerns side by side on one database, each one object holding its own input
 * rules and SQL (the same for both engines): their methods are the store's, not forwarded to it.
 * The file catalog stays a member of its own, since the file services are handed it alone.
 */
export function metadataStore(db: Kysely<Database>, engine: Engine, now: () => number = Date.now, sqliteFile?: string): MetadataStore {
  let closing: Promise<void> | undefined;
  const spellings = legacySpellings(db);
  return {
    engine,
    files: fileCatalog(db, durableTransaction(db, engine), spellings),
    offsite: offsiteRecords(db, engine, sqliteFile),
    events: eventRecords(db, engine),
    tenantOffsite: tenantOffsiteRecords(db, engine, sqliteFile),
    readHolds: readHoldRecords(db),
    uploads: uploadRecords(db),
    ...tenantRecords(db, now),
    ...adminRecords(db, now),
    ...adminChanges(db, now),
    ...invitationRecords(db),
    ...approvalRecords(db),
    ...channelRecords(db, now, spellings),
    ...principalLookup(db),
    ...nonceAndRevocationRecords(db),
    ...serviceSecrets(db),
    ...demoSeedingRecords(db, now),

    atomically: (work) => inTransaction(db, (trx) => work(metadataStore(trx, engine, now, sqliteFile))),

    async ping() {
      await sql`select 1`.execute(db);
    },

    close() {
      // Ending a pg pool twice throws; callers (CLI finally blocks, test hooks) may close twice.
      closing ??= db.destroy();
      return closing;
    },
  };
}
