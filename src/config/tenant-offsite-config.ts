import type { EnvReader } from './env-readers.ts';

/** Tenants' own off-site copies (docs/offsite.md, "A tenant's own copy"): how the service ships them. */
export interface TenantOffsiteConfig {
  /** How often an instance looks for tenants with changes to ship (OFFSITE_TENANT_INTERVAL, seconds). */
  intervalMs: number;
  /** Tenants shipped at once by one instance (OFFSITE_TENANT_CONCURRENCY): a slow target holds one slot. */
  concurrency: number;
  /** A new generation (snapshot) of a tenant's copy after this long (OFFSITE_TENANT_SNAPSHOT_INTERVAL, seconds). */
  snapshotEveryMs: number;
  /** Rows compared with the copy at least this often even without an audited change (OFFSITE_TENANT_RESCAN, seconds). */
  rescanMs: number;
  /** The longest a tenant's bucket may take to connect or go silent (OFFSITE_TENANT_TIMEOUT, seconds). */
  timeoutSeconds: number;
  /** The longest wait between two tries at a failing target (OFFSITE_TENANT_BACKOFF_MAX, seconds). */
  backoffMaxMs: number;
}

export function readTenantOffsiteConfig(read: EnvReader): TenantOffsiteConfig {
  return {
    intervalMs: read.seconds('OFFSITE_TENANT_INTERVAL', 5, 1, 3600) * 1000,
    concurrency: read.integer('OFFSITE_TENANT_CONCURRENCY', 4, 1, 64),
    snapshotEveryMs: read.seconds('OFFSITE_TENANT_SNAPSHOT_INTERVAL', 86_400, 60) * 1000,
    rescanMs: read.seconds('OFFSITE_TENANT_RESCAN', 3600, 10) * 1000,
    timeoutSeconds: read.seconds('OFFSITE_TENANT_TIMEOUT', 30, 1, 600),
    backoffMaxMs: read.seconds('OFFSITE_TENANT_BACKOFF_MAX', 300, 1, 86_400) * 1000,
  };
}
