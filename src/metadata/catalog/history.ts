import type { Kysely } from 'kysely';
import type { ChannelHistory } from '../../model/history.ts';
import type { LegacySpellings } from '../legacy-spellings.ts';
import type { Database } from '../schema.ts';
import { changesBetween, changesSince } from './changes-queries.ts';
import { fileAtSeq, readClock } from './channel-history.ts';
import { seqAtTime } from './instant-queries.ts';

type Db = Kysely<Database>;

/** The channel's clock, the instants it retains, and the changes between two states. */
export function channelHistory(db: Db, spellings: LegacySpellings): ChannelHistory {
  const foldersOf = async (channelId: string, folder: string | undefined) =>
    folder === undefined ? undefined : spellings.of(channelId, 'folder', folder);
  const channelHistory: ChannelHistory = {
    clock: (channelId: string) => readClock(db, channelId),
    seqAt: (channelId, at) => seqAtTime(db, channelId, at),
    fileAtSeq: (channelId, seq, folder, filename) => fileAtSeq(db, channelId, seq, folder, filename),
    changesBetween: async (channelId, from, to, options) =>
      changesBetween(db, channelId, from, to, { folders: await foldersOf(channelId, options.folder), page: options.page }),
    changesSince: async (channelId, from, scope) => changesSince(db, channelId, from, await foldersOf(channelId, scope.folder)),
  };
  return channelHistory;
}
