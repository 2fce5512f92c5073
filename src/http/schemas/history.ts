import { Type } from 'typebox';
import { adminName, instantParameter, PageQuery } from './files.ts';

const SHA256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

/** A deleted file that can still be restored (GET …/folders/{folderName}/deleted). */
export const DeletedFileSchema = Type.Object({
  filename: Type.String(),
  deletedAt: Type.String({ format: 'date-time' }),
  deletedBy: Type.Union([Type.String(), Type.Null()], {
    description: 'The admin (adm_…) who deleted it; null for the CLI, and for deletions recorded before this was kept',
  }),
  deletedByName: adminName('in deletedBy'),
  versionId: Type.String({ description: 'Restore the file with …/files/{filename}/restore?versionId= this id' }),
  size: Type.Integer(),
  sha256: SHA256,
});

// No pattern on the timestamps: a malformed one is INVALID_TIMESTAMP, as on the restore, not a schema refusal.
export const ChangesQuery = Type.Object({
  ...PageQuery.properties,
  from: Type.Optional(Type.String({ maxLength: 100, description: 'The older backup, yyyyMMdd_HHmmss (or fromAt: exactly one of them)' })),
  fromAt: instantParameter('Instead of from: the older state, the channel at this instant'),
  to: Type.Optional(Type.String({ maxLength: 100, description: 'The newer backup, yyyyMMdd_HHmmss; default: the live files now' })),
  toAt: instantParameter('Instead of to: the newer state, the channel at this instant'),
  folder: Type.Optional(Type.String({ maxLength: 1000, description: 'Only this folder' })),
});

/** A file that differs between the two states (GET …/changes). */
export const FileChangeSchema = Type.Object({
  folder: Type.String(),
  filename: Type.String(),
  change: Type.Union([Type.Literal('added'), Type.Literal('changed'), Type.Literal('deleted')]),
  size: Type.Integer({ description: 'Of the newer state; of the older one for deleted' }),
  sha256: SHA256,
});
