import type { Kysely } from 'kysely';
import type { Page, PageRequest } from '../../model/paging.ts';
import type { FileVersion, KeptVersions } from '../../model/versions.ts';
import { inTransaction } from '../in-transaction.ts';
import { canBeStoredKey } from '../input-validation.ts';
import type { LegacySpellings } from '../legacy-spellings.ts';
import { decodeCursor, pageFrom } from '../page-cursor.ts';
import type { Database } from '../schema.ts';
import { keptRowsOf, versionsOf } from './channel-history.ts';
import { listDeleted } from './deleted-files-queries.ts';
import { toFileVersion } from './file-catalog-rows.ts';

type Db = Kysely<Database>;

/** The versions a write replaced or a delete removed, a backup's entries among them, and the deleted files they still hold. */
export function keptVersions(db: Db, spellings: LegacySpellings): KeptVersions {
  const keptVersions: KeptVersions = {
    async getVersion(channelId: string, id: string): Promise<FileVersion | undefined> {
      if (!canBeStoredKey(id)) return undefined;
      const row = await db
        .selectFrom('file_versions')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toFileVersion(row);
    },
    async listVersions(channelId: string, folder: string, filename: string, page: PageRequest): Promise<Page<FileVersion>> {
      const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor, ['number', 'string']);
      const rows = await versionsOf(db, channelId, folder, filename, { limit: page.limit + 1, before });
      return pageFrom(rows, page.limit, (v) => [v.createdAt, v.id]);
    },
    listDeleted: async (channelId, folder, page) => listDeleted(db, channelId, await spellings.of(channelId, 'folder', folder), page),
    async versionHoldingBlob(path, blobKey: string): Promise<FileVersion | undefined> {
      const row = await keptRowsOf(db, path.channelId, path.folder, path.filename).where('blob_key', '=', blobKey).executeTakeFirst();
      return row && toFileVersion(row);
    },
    async moveVersionBlob({ versionId, from, to, writeId }): Promise<boolean> {
      return inTransaction(db, async (trx) => {
        const moved = await trx
          .updateTable('file_versions')
          .set({ blob_key: to })
          .where('id', '=', versionId)
          .where('blob_key', '=', from)
          .executeTakeFirst();
        if (moved.numUpdatedRows !== 1n) return false;
        await trx.deleteFrom('pending_writes').where('id', '=', writeId).execute();
        return true;
      });
    },
  };
  return keptVersions;
}
