import { PERMISSIONS } from '../../client/index.ts';

/** How a row reads, by the part of a permission before its colon; one not named here reads as that part. */
const SUBJECT_LABELS: Record<string, string> = {
  files: 'Files',
  backups: 'Backups',
  audit: 'Audit log',
  admins: 'Admins',
  channels: 'Channels',
};

/**
 * The service's permissions (the client's list, held equal to the service's) by what they are on
 * (rows, the part before the colon) and what they allow (columns, the part after it): a permission
 * the service adds shows up here without a second list to keep.
 */
const SUBJECTS = [...new Set(PERMISSIONS.map((permission) => permission.split(':')[0]!))];
const VERBS = [...new Set(PERMISSIONS.map((permission) => permission.split(':')[1]!))];
const permissionOf = (subject: string, verb: string) => PERMISSIONS.find((permission) => permission === `${subject}:${verb}`);

interface PermissionMatrixProps {
  /** The permissions ticked. */
  value: readonly string[];
  /** What the editor holds: nobody grants what they do not hold, so only these can be ticked or unticked. */
  grantable: readonly string[];
  onChange(next: string[]): void;
}

/**
 * Permissions as a grid of checkboxes. One the editor does not hold is not offered: a grant the
 * admin already has shows ticked but fixed, and an empty cell has nothing to tick.
 */
export function PermissionMatrix({ value, grantable, onChange }: PermissionMatrixProps) {
  const toggle = (permission: string, on: boolean) =>
    onChange(on ? [...value, permission] : value.filter((granted) => granted !== permission));
  return (
    <div class="table-wrap">
      <table class="table permission-matrix">
        <caption class="visually-hidden">Permissions</caption>
        <thead>
          <tr>
            <td />
            {VERBS.map((verb) => (
              <th key={verb} scope="col">
                {verb}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {SUBJECTS.map((subject) => (
            <tr key={subject}>
              <th scope="row">{SUBJECT_LABELS[subject] ?? subject}</th>
              {VERBS.map((verb) => {
                const permission = permissionOf(subject, verb);
                if (!permission) return <td key={verb} />;
                const held = grantable.includes(permission);
                const granted = value.includes(permission);
                if (!held && !granted) return <td key={verb} title={`${permission}: you do not hold it, so you cannot grant it`} />;
                return (
                  <td key={verb}>
                    <label class="matrix-cell">
                      <input
                        type="checkbox"
                        aria-label={permission}
                        title={held ? permission : `${permission}: you do not hold it, so it stays as it is`}
                        checked={granted}
                        disabled={!held}
                        onChange={(event) => toggle(permission, (event.target as HTMLInputElement).checked)}
                      />
                      {/* The column's header says it on a wide screen; a phone shows the cells as a list, each saying it. */}
                      <span class="matrix-verb" aria-hidden="true">
                        {verb}
                      </span>
                    </label>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
