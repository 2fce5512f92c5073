/** An administration event's record before and after, as the audit log answers it. */
type Change = { before: unknown; after: unknown } | null;

/**
 * What an event changed, field by field: only the fields whose value differs, before → after; a
 * record created shows what it was created with, one removed what it was.
 */
export function ChangeSummary({ change }: { change: Change }) {
  if (!change) return <span class="muted">—</span>;
  const before = recordOf(change.before);
  const after = recordOf(change.after);
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]),
  );
  if (fields.length === 0) return <span class="muted">No field changed</span>;
  return (
    <dl class="change">
      {fields.map((field) => (
        <div key={field} class="change-field">
          <dt>{field}</dt>
          <dd>
            {field in before && <del>{shown(before[field])}</del>}
            {field in before && field in after && ' → '}
            {field in after && <ins>{shown(after[field])}</ins>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function shown(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((item) => shown(item)).join(', ');
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '—';
}
