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

export const ScopeRestoreResultSchema = Type.Object({
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
});
