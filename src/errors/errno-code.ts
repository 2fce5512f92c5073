/** The `code` of a Node.js system error ('ENOENT', 'EEXIST', …), or undefined for anything else. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}
