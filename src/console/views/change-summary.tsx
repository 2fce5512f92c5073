import type { TenantAuditEvent } from '../../client/index.ts';

/**
 * What an event changed, field by field: only the fields whose value differs, before → after; a
 * record created shows what it was created with, one removed what it was.
 */
export function ChangeSummary({ change }: { change: TenantAuditEvent['change'] }) {
  if (!change) return <span class="muted">—</span>;
  const before = change.before ?? {};
  const after = change.after ?? {};
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

function shown(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((item) => shown(item)).join(', ');
  if (typeof value === 'string') return value;
  return JSON.stringify(value) ?? '—';
}
