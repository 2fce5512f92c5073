import { type Kysely, sql } from 'kysely';

/**
 * Names are stored in NFC from this release on (names/name-form.ts); releases before stored them
 * as callers spelled them, so a folder, file or channel name from macOS may be stored in NFD,
 * and a look-alike pair (one name in each form) may exist. Rows are not renamed: records keep the
 * names they were written under (and their public copies the keys those names make). Instead,
 * every stored name that is not in NFC is listed once here, with its NFC form, so that a caller's
 * name in either spelling finds it by one indexed lookup (metadata/legacy-spellings.ts):
 *
 * - kind 'folder' and 'file': the folders and file names of live files, kept versions and audit
 *   events, scope_id the channel;
 * - kind 'channel': channel names, scope_id the tenant.
 *
 * Nothing adds to this table after the migration: every name written from now on is NFC, or an
 * existing record's name (already listed). Only names with a character outside ASCII can be in
 * another form; the databases find those (more bytes than characters) and this code checks them.
 */
const SOURCES = [
  { table: 'files', scope: 'channel_id', column: 'folder', kind: 'folder' },
  { table: 'files', scope: 'channel_id', column: 'filename', kind: 'file' },
  { table: 'file_versions', scope: 'channel_id', column: 'folder', kind: 'folder' },
  { table: 'file_versions', scope: 'channel_id', column: 'filename', kind: 'file' },
  { table: 'audit_events', scope: 'channel_id', column: 'folder', kind: 'folder' },
  { table: 'audit_events', scope: 'channel_id', column: 'filename', kind: 'file' },
  { table: 'channels', scope: 'tenant_id', column: 'name', kind: 'channel' },
] as const;

const BATCH = 500;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('legacy_spellings')
    .addColumn('scope_id', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('spelling', 'text', (col) => col.notNull())
    .addColumn('name', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('legacy_spellings_pk', ['scope_id', 'kind', 'spelling'])
    .execute();
  await db.schema.createIndex('legacy_spellings_name_idx').on('legacy_spellings').columns(['scope_id', 'kind', 'name']).execute();

  for (const { table, scope, column, kind } of SOURCES) {
    const found = await sql<{ scope_id: string; spelling: string }>`
      select distinct ${sql.ref(scope)} as scope_id, ${sql.ref(column)} as spelling from ${sql.table(table)}
      where ${sql.ref(column)} is not null and octet_length(${sql.ref(column)}) > length(${sql.ref(column)})`.execute(db);
    const rows = found.rows
      .filter((row) => row.spelling !== row.spelling.normalize('NFC'))
      .map((row) => ({ scope_id: row.scope_id, kind, spelling: row.spelling, name: row.spelling.normalize('NFC') }));
    for (let i = 0; i < rows.length; i += BATCH) {
      await db
        .insertInto('legacy_spellings')
        .values(rows.slice(i, i + BATCH))
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('legacy_spellings').execute();
}
