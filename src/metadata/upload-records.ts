import { type Kysely, sql } from 'kysely';
import type { Usage } from '../model/quotas.ts';
import type { ResumableUpload, UploadRecords, UploadState } from '../model/uploads.ts';
import type { Database, ResumableUploadsTable } from './schema.ts';

/** Resumable uploads' state on one database (src/model/uploads.ts). */
export function uploadRecords(db: Kysely<Database>): UploadRecords {
  return {
    async createUpload(upload, maxPerAdmin, now) {
      await db.insertInto('resumable_uploads').values(rowOf(upload)).execute();
      // Counted after the insert, so that of two racing for the last place each sees the other.
      const row = await db
        .selectFrom('resumable_uploads')
        .select((eb) => eb.fn.countAll<string | number>().as('open'))
        .where('admin_id', '=', upload.adminId)
        .where('state', '=', 'open')
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow();
      if (Number(row.open) <= maxPerAdmin) return true;
      await db.deleteFrom('resumable_uploads').where('id', '=', upload.uploadId).execute();
      return false;
    },
    async getUpload(id) {
      const row = await db.selectFrom('resumable_uploads').selectAll().where('id', '=', id).executeTakeFirst();
      return row === undefined ? undefined : uploadOf(row);
    },
    async saveUpload(upload) {
      const { id, ...changed } = rowOf(upload);
      await db.updateTable('resumable_uploads').set(changed).where('id', '=', id).execute();
    },
    async deleteUpload(id) {
      await db.deleteFrom('resumable_uploads').where('id', '=', id).execute();
    },
    async expiredUploads(now, limit) {
      const rows = await db
        .selectFrom('resumable_uploads')
        .selectAll()
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map(uploadOf);
    },
    async census(now) {
      const row = await db
        .selectFrom('resumable_uploads')
        .select((eb) => [eb.fn.countAll<string | number>().as('files'), eb.fn.sum<string | number | null>('offset').as('bytes')])
        .where('state', '=', 'open')
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow();
      const { files, bytes } = usageOf(row);
      return { unfinished: files, bytes };
    },
    async reservedUsage(channelId, tenantId, now, exceptId) {
      // One read for both: the channel's uploads are among its tenant's.
      const reserved = sql`coalesce(${sql.ref('length')}, ${sql.ref('offset')})`;
      const inChannel = sql`${sql.ref('channel_id')} = ${channelId}`;
      let query = db
        .selectFrom('resumable_uploads')
        .select((eb) => [
          eb.fn.countAll<string | number>().as('files'),
          eb.fn.sum<string | number | null>(reserved).as('bytes'),
          eb.fn.sum<string | number | null>(sql`case when ${inChannel} then 1 else 0 end`).as('channel_files'),
          eb.fn.sum<string | number | null>(sql`case when ${inChannel} then ${reserved} else 0 end`).as('channel_bytes'),
        ])
        .where('tenant_id', '=', tenantId)
        .where('state', '=', 'open')
        .where('expires_at', '>', now);
      if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
      const row = await query.executeTakeFirstOrThrow();
      return {
        channel: usageOf({ files: row.channel_files ?? 0, bytes: row.channel_bytes }),
        tenant: usageOf(row),
      };
    },
  };
}

const usageOf = (row: { files: string | number; bytes: string | number | null }): Usage => ({
  files: Number(row.files),
  bytes: Number(row.bytes ?? 0),
});

function rowOf(upload: ResumableUpload): ResumableUploadsTable {
  return {
    id: upload.uploadId,
    channel_id: upload.channelId,
    tenant_id: upload.tenantId,
    admin_id: upload.adminId,
    folder: upload.folder,
    filename: upload.filename,
    content_type: upload.contentType,
    metadata: upload.metadata,
    precondition: JSON.stringify(upload.precondition),
    length: upload.length,
    offset: upload.offset,
    created_at: upload.createdAt,
    expires_at: upload.expiresAt,
    multipart_id: upload.multipartId,
    parts: JSON.stringify(upload.parts),
    tail_key: upload.tailKey,
    tail_size: upload.tailSize,
    state: upload.state,
    etag: upload.etag,
    failure: upload.failure === null ? null : JSON.stringify(upload.failure),
  };
}

function uploadOf(row: ResumableUploadsTable): ResumableUpload {
  return {
    uploadId: row.id,
    channelId: row.channel_id,
    tenantId: row.tenant_id,
    adminId: row.admin_id,
    folder: row.folder,
    filename: row.filename,
    contentType: row.content_type,
    metadata: row.metadata,
    precondition: JSON.parse(row.precondition) as ResumableUpload['precondition'],
    length: row.length === null ? null : Number(row.length),
    offset: Number(row.offset),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    multipartId: row.multipart_id,
    parts: JSON.parse(row.parts) as ResumableUpload['parts'],
    tailKey: row.tail_key,
    tailSize: Number(row.tail_size),
    state: row.state as UploadState,
    etag: row.etag,
    failure: row.failure === null ? null : (JSON.parse(row.failure) as ResumableUpload['failure']),
  };
}
