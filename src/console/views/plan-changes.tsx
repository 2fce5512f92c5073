import type { ScopeRestoreResult } from '../../client/index.ts';
import { FilePath } from '../ui/file-name.tsx';

/** The plan is a preview: what the restore will do to each file, once confirmed (or approved). */
const ACTION_LABELS = { replace: 'Will replace', create: 'Will bring back', delete: 'Will delete' } as const;

type Change = ScopeRestoreResult['changes'][number];

/** A folder or channel restore's planned changes, file by file, as the restore dialog and a proposal show them. */
export function PlanChanges({ changes }: { changes: readonly Change[] }) {
  return (
    <ul class="plan" aria-label="Planned changes">
      {changes.map((change) => (
        <li key={`${change.folder}/${change.filename}`}>
          <span class={`badge badge-${change.action}`}>{ACTION_LABELS[change.action as keyof typeof ACTION_LABELS] ?? change.action}</span>{' '}
          <span>
            <FilePath folder={change.folder} filename={change.filename} />
          </span>
        </li>
      ))}
    </ul>
  );
}
