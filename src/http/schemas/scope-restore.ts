import { Type } from 'typebox';
import { instantParameter } from './files.ts';

// Exactly "true" or "false": Ajv's coercion would also take 1, 0 and an empty value for a boolean.
const Flag = (description: string) => Type.Optional(Type.Enum(['true', 'false'], { description }));

export const ScopeRestoreQuery = Type.Object({
  backupTimestamp: Type.Optional(Type.String({ description: 'The backup to restore from, yyyyMMdd_HHmmss (or at: exactly one of them)' })),
  at: instantParameter('Instead of a backup: the state of the scope at this instant'),
  dryRun: Flag('true: answer the plan and change nothing (default false)'),
  delete: Flag('true: also delete live files of the scope that the backup does not hold (default false: they stay)'),
});

/** A folder or channel restore's condition: the plan a dry run answered (If-None-Match is refused there: 400). */
export const PlanIfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        "Restore only if the plan is still the one with this ETag (a dry run's ETag header); * for any plan. Unmet: 412, nothing restored",
    }),
  ),
});

export const ScopeRestoreResultSchema = Type.Object(
  {
    dryRun: Type.Boolean(),
    safetyBackup: Type.Union([Type.String({ pattern: '^\\d{8}_\\d{6}$' }), Type.Null()], {
      description:
        'The backup of the whole channel taken before the first change: a channel restore from it (with delete=true) undoes this one; ' +
        'null for a dry run or when nothing changed',
    }),
    changes: Type.Array(
      Type.Object({
        folder: Type.String(),
        filename: Type.String(),
        action: Type.Enum(['replace', 'create', 'delete']),
      }),
      { description: 'By folder, then filename' },
    ),
    unchanged: Type.Integer({ description: 'Files of the backup that the scope already holds with the same bytes' }),
    quota: Type.Optional(
      Type.Object(
        {
          scope: Type.Enum(['channel', 'tenant']),
          maxBytes: Type.Union([Type.Integer(), Type.Null()]),
          maxFiles: Type.Union([Type.Integer(), Type.Null()]),
          used: Type.Object({ files: Type.Integer(), bytes: Type.Integer() }),
          after: Type.Object({ files: Type.Integer(), bytes: Type.Integer() }),
        },
        {
          description:
            'Present only when the restore goes past a quota (docs/quotas.md): which one, usage now and once restored. A restore runs all the same; uploads are then refused until usage is under it',
        },
      ),
    ),
  },
  {
    headers: {
      ETag: {
        type: 'string',
        description: "The plan's strong ETag: If-Match with it restores exactly this plan (412 once the scope has changed)",
      },
    },
  },
);
