/**
 * A plan as one line of JSON with its object keys sorted, so that the same plan always reads the
 * same in the typed data a wallet shows (the hash chain of the audit log has its own RFC 8785 form).
 */
export function canonicalPlan(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
