import type { Kysely } from 'kysely';
import type { FileRecord, FolderSummary, LiveFiles, Lookalikes, StoredPath } from '../../model/files.ts';
import type { Page, PageRequest } from '../../model/paging.ts';
import { inTransaction } from '../in-transaction.ts';
import type { LegacySpellings } from '../legacy-spellings.ts';
import { pageByKey } from '../page-cursor.ts';
import type { Database } from '../schema.ts';
import { advanceClock, countInFolder, endLiveSpan, readClock } from './channel-history.ts';
import { fileRow, toFileRecord } from './file-catalog-rows.ts';
import { upsertLiveRow } from './live-file-commits.ts';

type Db = Kysely<Database>;

/** The live record of each file, and the per-folder and per-channel counts every write keeps beside them. */
export function liveFiles(db: Db, spellings: LegacySpellings): LiveFiles {
  const liveFiles: LiveFiles = {
    async putFile(record: FileRecord): Promise<'created' | 'replaced'> {
      return inTransaction(db, async (trx) => {
        const existing = await trx
          .selectFrom('files')
          .select('size')
          .where('channel_id', '=', record.channelId)
          .where('folder', '=', record.folder)
          .where('filename', '=', record.filename)
          .executeTakeFirst();
        // The new bytes' place in the channel's history; the bytes they replace end there.
        const { seq } = await advanceClock(
          trx,
          record.channelId,
          { files: existing ? 0 : 1, bytes: record.size - (existing ? Number(existing.size) : 0) },
          record.updatedAt,
        );
        await upsertLiveRow(trx, fileRow(record, seq));
        await endLiveSpan(trx, record.channelId, record.folder, record.filename, seq);
        if (!existing) await countInFolder(trx, record.channelId, record.folder, 1);
        return existing ? 'replaced' : 'created';
      });
    },
    async getFile(channelId: string, folder: string, filename: string): Promise<FileRecord | undefined> {
      const row = await db
        .selectFrom('files')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('folder', '=', folder)
        .where('filename', '=', filename)
        .executeTakeFirst();
      return row && toFileRecord(row);
    },
    async deleteFile(channelId: string, folder: string, filename: string, at: number): Promise<boolean> {
      return inTransaction(db, async (trx) => {
        const existing = await trx
          .deleteFrom('files')
          .where('channel_id', '=', channelId)
          .where('folder', '=', folder)
          .where('filename', '=', filename)
          .returning('size')
          .executeTakeFirst();
        if (!existing) return false;
        const { seq } = await advanceClock(trx, channelId, { files: -1, bytes: -Number(existing.size) }, at);
        await endLiveSpan(trx, channelId, folder, filename, seq);
        await countInFolder(trx, channelId, folder, -1);
        return true;
      });
    },
    async listFiles(channelId: string, folder: string, page: PageRequest): Promise<Page<FileRecord>> {
      const folders = await spellings.of(channelId, 'folder', folder);
      const query = db.selectFrom('files').selectAll().where('channel_id', '=', channelId).where('folder', 'in', folders);
      // By filename; then by folder when look-alike folders are listed together, which may each hold a file of one name.
      return pageByKey(query, page, toFileRecord, {
        column: 'filename',
        tieBreak: folders.length > 1 ? 'folder' : undefined,
        keyOf: (f) => (folders.length > 1 ? [f.filename, f.folder] : [f.filename]),
      });
    },
    async listFolders(channelId: string, page: PageRequest): Promise<Page<FolderSummary>> {
      // Counted by every write (folder_counts): a page reads its own folders' rows, never their files.
      const query = db.selectFrom('folder_counts').select(['folder', 'files']).where('channel_id', '=', channelId);
      return pageByKey(query, page, (r) => ({ name: r.folder, fileCount: Number(r.files) }), { column: 'folder', keyOf: (f) => [f.name] });
    },
    async allFiles(channelId: string): Promise<FileRecord[]> {
      const rows = await db
        .selectFrom('files')
        .selectAll()
        .where('channel_id', '=', channelId)
        .orderBy('folder')
        .orderBy('filename')
        .execute();
      return rows.map(toFileRecord);
    },
    async lookalikes(channelId: string, path: StoredPath): Promise<Lookalikes | undefined> {
      const folders = await spellings.of(channelId, 'folder', path.folder);
      const filenames = await spellings.of(channelId, 'file', path.filename);
      if (folders.length === 1 && filenames.length === 1) return undefined;
      const live = await db
        .selectFrom('files')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('folder', 'in', folders)
        .where('filename', 'in', filenames)
        .orderBy('folder')
        .orderBy('filename')
        .execute();
      const kept = await db
        .selectFrom('file_versions')
        .select(['folder', 'filename'])
        .distinct()
        .where('channel_id', '=', channelId)
        .where('folder', 'in', folders)
        .where('filename', 'in', filenames)
        .orderBy('folder')
        .orderBy('filename')
        .execute();
      const liveFolders = await db
        .selectFrom('folder_counts')
        .select('folder')
        .where('channel_id', '=', channelId)
        .where('folder', 'in', folders)
        .orderBy('folder')
        .execute();
      return { live: live.map(toFileRecord), kept, liveFolders: liveFolders.map((row) => row.folder) };
    },
    async countFiles(channelId, scope) {
      if (scope.folder === undefined) return (await readClock(db, channelId)).files;
      const rows = await db
        .selectFrom('folder_counts')
        .select('files')
        .where('channel_id', '=', channelId)
        .where('folder', 'in', await spellings.of(channelId, 'folder', scope.folder))
        .execute();
      return rows.reduce((sum, row) => sum + Number(row.files), 0);
    },
    async channelsWithFiles(): Promise<string[]> {
      const rows = await db
        .selectFrom('files')
        .select('channel_id')
        .union(db.selectFrom('file_versions').select('channel_id'))
        .union(db.selectFrom('backups').select('channel_id'))
        .execute();
      return rows.map((r) => r.channel_id).sort();
    },
  };
  return liveFiles;
}
