import type { Kysely } from 'kysely';
import type { PendingWrite, PublicCopyDue, WriteJournal } from '../../model/write-journal.ts';
import type { Database } from '../schema.ts';
import { toPendingWrite } from './file-catalog-rows.ts';
import { abandonWrite, commitDelete, commitWrite, journalWrite } from './live-file-commits.ts';

type Db = Kysely<Database>;

/** The journal of writes in flight, their commit points (live-file-commits.ts), and the public copies that follow them. */
export function writeJournal(db: Db): WriteJournal {
  const writeJournal: WriteJournal = {
    journalWrite: (write) => journalWrite(db, write),
    commitWrite: (commit) => commitWrite(db, commit),
    commitDelete: (commit) => commitDelete(db, commit),
    abandonWrite: (id, at) => abandonWrite(db, id, at),
    async endWrite(id: string): Promise<void> {
      await db.deleteFrom('pending_writes').where('id', '=', id).execute();
    },
    async pendingWrites(): Promise<PendingWrite[]> {
      const rows = await db.selectFrom('pending_writes').selectAll().orderBy('started_at').orderBy('id').execute();
      return rows.map(toPendingWrite);
    },
    async publicCopiesDue(path): Promise<PublicCopyDue[]> {
      let query = db.selectFrom('public_copies_due').selectAll();
      if (path !== undefined)
        query = query.where('channel_id', '=', path.channelId).where('folder', '=', path.folder).where('filename', '=', path.filename);
      const rows = await query.orderBy('queued_at').execute();
      return rows.map((r) => ({ channelId: r.channel_id, folder: r.folder, filename: r.filename, queuedAt: Number(r.queued_at) }));
    },
    async endPublicCopyDue(due: PublicCopyDue): Promise<void> {
      await db
        .deleteFrom('public_copies_due')
        .where('channel_id', '=', due.channelId)
        .where('folder', '=', due.folder)
        .where('filename', '=', due.filename)
        .where('queued_at', '=', due.queuedAt)
        .execute();
    },
  };
  return writeJournal;
}
