import { type RawBuilder, type Selectable, sql, type Transaction } from 'kysely';
import type { FileRecord } from '../../model/files.ts';
import type { ChannelQuotas, Usage } from '../../model/quotas.ts';
import type { Database, FilesTable, FileVersionsTable } from '../schema.ts';
import type { ChainedAppend } from './audit-append-postgres.ts';
import { fileRow, keptVersionRow } from './file-catalog-rows.ts';
import { type QuotasRow, toChannelQuotas } from './quota-records.ts';

type Trx = Transaction<Database>;

/**
 * A write's commit on PostgreSQL in two statements where the portable one (live-file-commits.ts)
 * takes seven, each a round trip: the same rows written, in the same transaction. Data-modifying
 * CTEs all see the snapshot the statement started with and run to completion, whatever the outer
 * query reads of them.
 */

/** What the commit reads before it writes: whether it ended the journal entry, the live record, the quotas asked for. */
export interface OpenedCommit {
  ended: boolean;
  live: Selectable<FilesTable> | undefined;
  /** When asked for; undefined also when the channel is gone. */
  quotas: ChannelQuotas | undefined;
}

const FILE_COLUMNS = ['channel_id', 'folder', 'filename', 'size', 'sha256', 'content_type', 'updated_at', 'since_seq', 'blob_key'] as const;

/**
 * One statement: the journal entry ended (by this commit, if it was still open and not given up),
 * the live record read, and with `withQuotas` the channel's and its tenant's limits. A commit that
 * then finds it must not go on throws, and the transaction takes the entry's end back.
 */
export async function openCommit(
  trx: Trx,
  path: { writeId: string; channelId: string; folder: string; filename: string },
  withQuotas: boolean,
): Promise<OpenedCommit> {
  const quotas = withQuotas ? sql`, q.tenant_id, q.channel_bytes, q.channel_files, q.tenant_bytes, q.tenant_files` : sql``;
  const quotasJoin = withQuotas
    ? sql`left join (
        select t.id as tenant_id, c.quota_max_bytes as channel_bytes, c.quota_max_files as channel_files,
               t.quota_max_bytes as tenant_bytes, t.quota_max_files as tenant_files
        from channels c join tenants t on t.id = c.tenant_id where c.id = ${path.channelId}
      ) q on true`
    : sql``;
  const { rows } = await sql<{ ended: string } & Partial<Selectable<FilesTable>> & Partial<QuotasRow>>`
    with ended as (delete from pending_writes where id = ${path.writeId} and abandoned_at is null returning id)
    select (select count(*) from ended) as ended, ${sql.join(FILE_COLUMNS.map((c) => sql.ref(`f.${c}`)))} ${quotas}
    from (values (1)) as one (x)
    left join files f on f.channel_id = ${path.channelId} and f.folder = ${path.folder} and f.filename = ${path.filename}
    ${quotasJoin}`.execute(trx);
  const row = rows[0]!;
  const live = row.blob_key == null ? undefined : (Object.fromEntries(FILE_COLUMNS.map((c) => [c, row[c]])) as Selectable<FilesTable>);
  return {
    ended: Number(row.ended) === 1,
    live,
    quotas: withQuotas && row.tenant_id != null ? toChannelQuotas(row as QuotasRow) : undefined,
  };
}

/**
 * One statement: the channel's clock advanced (its row locked until commit: the writes of one
 * channel queue here, so it comes as late as it can), the tick of the new seq (and of seq 0 on the
 * channel's first write), the replaced bytes kept as a version whose span ends at the new seq, the
 * live record written from it, the folder's count, the public copy queued, and with `audit` the
 * write's audit entry. Answers the new seq, the channel's usage after it, records live and kept
 * (docs/quotas.md), and whether the entry was appended (not when the tenant has no head yet).
 */
export async function recordWrite(
  trx: Trx,
  write: {
    file: FileRecord;
    live: Selectable<FilesTable> | undefined;
    keptVersionId: string;
    publicCopy: boolean;
    /** The write's audit entry, appended by this statement once it holds the clock (audit-append-postgres.ts). */
    audit?: ChainedAppend | undefined;
  },
): Promise<{ seq: number; usage: Usage; audited: boolean }> {
  const { file, live } = write;
  const kept = live ? { files: 1, bytes: Number(live.size) } : { files: 0, bytes: 0 };
  const files = live ? 0 : 1;
  const bytes = file.size - (live ? Number(live.size) : 0);
  const at = file.updatedAt;
  const parts: RawBuilder<unknown>[] = [
    sql`tick as (insert into clock_ticks (channel_id, seq, at) select channel_id, seq, tick_at from clock)`,
    // A channel's first write: its empty state before it holds from the beginning (as advanceClock).
    sql`first_tick as (insert into clock_ticks (channel_id, seq, at) select channel_id, 0, 0 from clock where seq = 1 on conflict do nothing)`,
    sql`live as (${insertAtSeq('files', fileRow(file, 0), 'since_seq')}
      on conflict (channel_id, folder, filename) do update set size = excluded.size, sha256 = excluded.sha256,
        content_type = excluded.content_type, updated_at = excluded.updated_at, since_seq = excluded.since_seq, blob_key = excluded.blob_key)`,
  ];
  if (live) {
    const row = keptVersionRow(write.keptVersionId, live, { kind: 'replaced', at, untilSeq: 0, createdBy: null });
    parts.push(sql`kept as (${insertAtSeq('file_versions', row, 'until_seq')})`);
  } else {
    parts.push(sql`folder as (insert into folder_counts (channel_id, folder, files) values (${file.channelId}, ${file.folder}, 1)
      on conflict (channel_id, folder) do update set files = folder_counts.files + 1)`);
  }
  if (write.publicCopy) {
    parts.push(sql`copy as (insert into public_copies_due (channel_id, folder, filename, queued_at)
      values (${file.channelId}, ${file.folder}, ${file.filename}, ${at})
      on conflict (channel_id, folder, filename) do update set queued_at = excluded.queued_at)`);
  }
  // Here, not after the answer: the tenant's head taken in the same round trip as the clock, so
  // that neither is held over a round trip of its own before the commit.
  if (write.audit) parts.push(write.audit.ctes);
  const audited = write.audit
    ? sql`, (select chain_seq from audit_appended) as chain_seq, (select prev_hash from audit_appended) as prev_hash,
        (select entry_hash from audit_appended) as entry_hash`
    : sql``;
  // On a conflict the row is re-read when a concurrent writer held it (PostgreSQL re-evaluates the
  // SET on the newest row version), so seq and tick_at always build on the previous write's.
  const { rows } = await sql<{
    seq: string;
    files: string;
    bytes: string;
    kept_files: string;
    kept_bytes: string;
    chain_seq?: string | null;
    prev_hash?: string | null;
    entry_hash?: string | null;
  }>`
    with clock as (
      insert into channel_clocks as k (channel_id, seq, files, bytes, kept_files, kept_bytes, retained_from_seq, retained_from_at, tick_at)
      values (${file.channelId}, 1, ${files}, ${bytes}, ${kept.files}, ${kept.bytes}, 0, null, ${at})
      on conflict (channel_id) do update set seq = k.seq + 1, files = k.files + ${files}, bytes = k.bytes + ${bytes},
        kept_files = k.kept_files + ${kept.files}, kept_bytes = k.kept_bytes + ${kept.bytes},
        tick_at = case when coalesce(k.tick_at, 0) > ${at} then k.tick_at else ${at} end
      returning channel_id, seq, tick_at, files, bytes, kept_files, kept_bytes
    ), ${sql.join(parts)}
    select seq, files, bytes, kept_files, kept_bytes ${audited} from clock`.execute(trx);
  const clock = rows[0]!;
  const appended =
    clock.chain_seq == null ? undefined : { chain_seq: clock.chain_seq, prev_hash: clock.prev_hash!, entry_hash: clock.entry_hash! };
  return {
    seq: Number(clock.seq),
    usage: { files: Number(clock.files) + Number(clock.kept_files), bytes: Number(clock.bytes) + Number(clock.kept_bytes) },
    audited: write.audit?.appended(appended) ?? false,
  };
}

/** `insert into table (…) values (…)` of `row`, its `seqColumn` the seq the statement's clock advanced to. */
function insertAtSeq<T extends FilesTable | FileVersionsTable>(table: string, row: T, seqColumn: keyof T & string): RawBuilder<unknown> {
  const columns = Object.keys(row) as (keyof T & string)[];
  const values = columns.map((column) => (column === seqColumn ? sql`(select seq from clock)` : sql`${row[column]}`));
  return sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))}) values (${sql.join(values)})`;
}
