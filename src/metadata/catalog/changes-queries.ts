import { type Kysely, sql } from 'kysely';
import type { FileChange, StateName } from '../../model/history.ts';
import type { Page, PageRequest } from '../../model/paging.ts';
import { decodeCursor, pageFrom } from '../page-cursor.ts';
import type { Database } from '../schema.ts';
import { type HistoryState, readBackup, readClock, stateAt, stateOfBackup, touchedBetween } from './channel-history.ts';

/**
 * What changed in a channel from state `from` to state `to` (null: the live files), by
 * (folder, filename): files only in the newer state are added, only in the older one deleted,
 * in both with other bytes (sha256) changed; equal bytes are no change. The sizes and hashes are
 * the newer state's, the older one's for a deletion. Named backups must exist (the caller checks).
 *
 * Between two instants of the channel's history (backups from migration 005 on, or now) only the
 * files written in between are compared, so the cost follows the change, not the channel; a
 * backup from before compares every file of both states.
 */
export async function changesBetween(
  db: Kysely<Database>,
  channelId: string,
  from: StateName,
  to: StateName | null,
  { folders, page }: { folders: readonly string[] | undefined; page: PageRequest },
): Promise<Page<FileChange>> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, ['string', 'string']);
  const changes = await diffStates(db, channelId, from, to, { folders, after, limit: page.limit + 1 });
  // The older size is a restore's to plan with; a listing of changes shows what it always has.
  const listed = changes.map(({ olderSize: _olderSize, ...change }) => change);
  return pageFrom(listed, page.limit, (c) => [c.folder, c.filename]);
}

/**
 * Every change from state `from` to the live files within `folders` (a folder's spellings; or
 * the whole channel), in one read: what a folder or channel restore must undo. Its cost follows
 * the change, as above.
 */
export async function changesSince(
  db: Kysely<Database>,
  channelId: string,
  from: StateName,
  folders: readonly string[] | undefined,
): Promise<FileChange[]> {
  return diffStates(db, channelId, from, null, { folders });
}

async function diffStates(
  db: Kysely<Database>,
  channelId: string,
  from: StateName,
  to: StateName | null,
  {
    folders,
    after,
    limit,
  }: { folders: readonly string[] | undefined; after?: readonly [string, string] | undefined; limit?: number | undefined },
): Promise<FileChange[]> {
  const older = await stateOf(db, channelId, from);
  const newer = to === null ? undefined : await stateOf(db, channelId, to);
  if (older === undefined || (to !== null && newer === undefined)) return [];
  const seqOf = (state: HistoryState) => ('seq' in state ? state.seq : undefined);
  const olderSeq = seqOf(older);
  const newerSeq = newer === undefined ? (await readClock(db, channelId)).seq : seqOf(newer);
  const touched = olderSeq !== undefined && newerSeq !== undefined ? touchedBetween(channelId, olderSeq, newerSeq) : undefined;
  const scope = { folders, only: touched === undefined ? undefined : 'touched' };
  const afterCursor = after === undefined ? sql`` : sql`where (c.folder, c.filename) > (${after[0]}, ${after[1]})`;
  const limited = limit === undefined ? sql`` : sql`limit ${limit}`;

  // Materialized: the candidates are read once, then each is looked up in both states.
  const result = await sql<Record<string, unknown>>`
    with ${touched === undefined ? sql`` : sql`touched as materialized (${touched}),`}
         older as (${stateAt(channelId, older, scope)}),
         newer as (${stateAt(channelId, newer, scope)})
    select * from (
      select n.folder, n.filename, case when o.filename is null then 'added' else 'changed' end as change, n.size, n.sha256,
             o.size as older_size
        from newer n left join older o on o.folder = n.folder and o.filename = n.filename
        where o.filename is null or o.sha256 <> n.sha256
      union all
      select o.folder, o.filename, 'deleted' as change, o.size, o.sha256, o.size as older_size
        from older o
        where not exists (select 1 from newer n where n.folder = o.folder and n.filename = o.filename)
    ) c ${afterCursor}
    order by c.folder, c.filename
    ${limited}`.execute(db);
  return result.rows.map((r) => ({
    folder: String(r.folder),
    filename: String(r.filename),
    change: r.change as FileChange['change'],
    size: Number(r.size),
    sha256: String(r.sha256),
    ...(r.older_size === null || r.older_size === undefined ? {} : { olderSize: Number(r.older_size) }),
  }));
}

async function stateOf(db: Kysely<Database>, channelId: string, name: StateName): Promise<HistoryState | undefined> {
  if (typeof name !== 'string') return name;
  const backup = await readBackup(db, channelId, name);
  return backup && stateOfBackup(backup);
}
