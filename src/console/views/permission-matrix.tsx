/** The permissions by what they are on (rows) and what they allow (columns), as the service names them. */
const SUBJECTS: { label: string; permissions: Partial<Record<Verb, string>> }[] = [
  { label: 'Files', permissions: { read: 'files:read', write: 'files:write', restore: 'files:restore' } },
  { label: 'Backups', permissions: { create: 'backups:create' } },
  { label: 'Audit log', permissions: { read: 'audit:read' } },
  { label: 'Admins', permissions: { read: 'admins:read', manage: 'admins:manage' } },
  { label: 'Channels', permissions: { manage: 'channels:manage' } },
];
const VERBS = ['read', 'write', 'restore', 'create', 'manage'] as const;
type Verb = (typeof VERBS)[number];

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
            <tr key={subject.label}>
              <th scope="row">{subject.label}</th>
              {VERBS.map((verb) => {
                const permission = subject.permissions[verb];
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
