/**
 * SECRETS_KEY (docs/events.md, "Secrets at rest"): the one key under which the service keeps the
 * secrets tenants give it or it makes for them (webhook signing secrets, a tenant's own bucket's
 * credentials). 32 bytes, written as 64 hex digits or as base64 (`openssl rand -base64 32`).
 */
export function parseSecretsKey(value: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{42,43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  throw new Error('SECRETS_KEY must be 32 bytes, as 64 hex digits or as base64 (make one with `openssl rand -base64 32`)');
}
