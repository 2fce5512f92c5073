import { type Kysely, sql } from 'kysely';
import type { FileChange, Page, PageRequest } from './file-catalog-types.ts';
import { decodeCursor, pageFrom } from './page-cursor.ts';
import type { Database } from './schema.ts';

export interface ChangesOptions {
  /** Only this folder's files. */
  folder?: string | undefined;
  page: PageRequest;
}

/**
 * What changed in a channel from backup `from` to backup `to` (null: the live files), by
 * (folder, filename): files only in the newer state are added, only in the older one deleted,
 * in both with other bytes (sha256) changed; equal bytes are no change. The sizes and hashes are
 * the newer state's, the older one's for a deletion. Both backups must exist (the caller checks).
 *
 * The one place that knows what a backup's state is — today its 'backup' rows in file_versions —
 * so that a different way of storing backups replaces this body only.
 */
export async function changesBetween(
  db: Kysely<Database>,
  channelId: string,
  from: string,
  to: string | null,
  { folder, page }: ChangesOptions,
): Promise<Page<FileChange>> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, ['string', 'string']);
  // The folder and the cursor narrow both states before they are compared, so a page reads
  // about as many rows of each as it answers.
  const narrowed = sql<boolean>`${folder === undefined ? sql`true` : sql`s.folder = ${folder}`} and ${
    after === undefined ? sql`true` : sql`(s.folder, s.filename) > (${after[0]}, ${after[1]})`
  }`;
  const backupState = (timestamp: string) =>
    db
      .selectFrom('file_versions as s')
      .select(['s.folder', 's.filename', 's.size', 's.sha256'])
      .where('s.channel_id', '=', channelId)
      .where('s.kind', '=', 'backup')
      .where('s.backup_timestamp', '=', timestamp)
      .where(narrowed);
  const liveState = () =>
    db
      .selectFrom('files as s')
      .select(['s.folder', 's.filename', 's.size', 's.sha256'])
      .where('s.channel_id', '=', channelId)
      .where(narrowed);

  const rows = await db
    .with('older', () => backupState(from))
    .with('newer', () => (to === null ? liveState() : backupState(to)))
    .selectFrom('newer')
    .leftJoin('older', (join) => join.onRef('older.folder', '=', 'newer.folder').onRef('older.filename', '=', 'newer.filename'))
    .select((eb) => [
      'newer.folder',
      'newer.filename',
      eb
        .case()
        .when('older.filename', 'is', null)
        .then(sql.lit('added'))
        .else(sql.lit('changed'))
        .end()
        .$castTo<FileChange['change']>()
        .as('change'),
      'newer.size',
      'newer.sha256',
    ])
    .where((eb) => eb.or([eb('older.filename', 'is', null), eb('older.sha256', '<>', eb.ref('newer.sha256'))]))
    .unionAll((eb) =>
      eb
        .selectFrom('older')
        // The outer query's left join types `older` as nullable; here its rows are whole.
        .select((s) => [
          s.ref('older.folder').$notNull().as('folder'),
          s.ref('older.filename').$notNull().as('filename'),
          sql.lit('deleted').$castTo<FileChange['change']>().as('change'),
          s.ref('older.size').$notNull().as('size'),
          s.ref('older.sha256').$notNull().as('sha256'),
        ])
        .where((w) =>
          w.not(
            w.exists(
              w
                .selectFrom('newer')
                .select('newer.filename')
                .whereRef('newer.folder', '=', 'older.folder')
                .whereRef('newer.filename', '=', 'older.filename'),
            ),
          ),
        ),
    )
    .orderBy('folder')
    .orderBy('filename')
    .limit(page.limit + 1)
    .execute();
  const changes: FileChange[] = rows.map((r) => ({
    folder: r.folder,
    filename: r.filename,
    change: r.change,
    size: r.size,
    sha256: r.sha256,
  }));
  return pageFrom(changes, page.limit, (c) => [c.folder, c.filename]);
}
