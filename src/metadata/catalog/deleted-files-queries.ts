import { type Kysely, sql } from 'kysely';
import type { Page, PageRequest } from '../../model/paging.ts';
import type { FileVersion } from '../../model/versions.ts';
import { pageByKey } from '../page-cursor.ts';
import type { Database } from '../schema.ts';
import { toFileVersion } from './file-catalog-rows.ts';

/**
 * The files of a folder (`folders`: its spellings, legacy-spellings.ts) that were deleted and can
 * still be restored, by filename: those with no live file of that name and a kept 'deleted'
 * version, each with its newest deletion. Both conditions read the file's own rows through the
 * (channel_id, folder, filename, …) indexes.
 */
export async function listDeleted(
  db: Kysely<Database>,
  channelId: string,
  folders: readonly string[],
  page: PageRequest,
): Promise<Page<FileVersion>> {
  const query = db
    .selectFrom('file_versions as v')
    .selectAll('v')
    .where('v.channel_id', '=', channelId)
    .where('v.folder', 'in', folders)
    .where('v.kind', '=', 'deleted')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('files as f')
            .select('f.filename')
            .whereRef('f.channel_id', '=', 'v.channel_id')
            .whereRef('f.folder', '=', 'v.folder')
            .whereRef('f.filename', '=', 'v.filename'),
        ),
      ),
    )
    // Only the newest deletion of each name: a file deleted, uploaded again and deleted again is listed once.
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('file_versions as newer')
            .select('newer.id')
            .whereRef('newer.channel_id', '=', 'v.channel_id')
            .whereRef('newer.folder', '=', 'v.folder')
            .whereRef('newer.filename', '=', 'v.filename')
            .where('newer.kind', '=', 'deleted')
            .where(sql<boolean>`(newer.created_at, newer.id) > (v.created_at, v.id)`),
        ),
      ),
    );
  // By filename, then folder when look-alike folders are listed together (file-catalog.ts).
  return pageByKey(query, page, toFileVersion, {
    column: 'v.filename',
    tieBreak: folders.length > 1 ? 'v.folder' : undefined,
    keyOf: (v) => (folders.length > 1 ? [v.filename, v.folder] : [v.filename]),
  });
}
