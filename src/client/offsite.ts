import { json, jsonCall, readToEnd, type SignedSender } from './requests.ts';
import type { OffsiteTestResult, TenantOffsite, TenantOffsiteSettings } from './types.ts';

const OFFSITE_PATH = '/api/offsite';

/**
 * The tenant's own off-site copy (docs/offsite.md, "A tenant's own copy"), for admins holding
 * offsite:manage: the service ships the tenant's data, encrypted to the tenant's age recipients, to
 * the tenant's own bucket. Setting and removing it may be held by a policy (offsite.change):
 * HeldForApproval, as for the other held operations.
 */
export function offsiteCalls(signed: SignedSender) {
  return {
    /** The target and how far the copy has come; a ProblemError 404 OFFSITE_NOT_SET when none is set. */
    getOffsite: async (): Promise<TenantOffsite> => json(await signed({ method: 'GET', path: OFFSITE_PATH })),

    /** Sets or replaces the target; shipping there begins within the service's OFFSITE_TENANT_INTERVAL. The secret is never shown again. */
    setOffsite: async (settings: TenantOffsiteSettings): Promise<TenantOffsite> =>
      json(await signed(jsonCall('PUT', OFFSITE_PATH, settings))),

    /** Stops shipping there: nothing at the target is deleted. */
    removeOffsite: async (): Promise<void> => readToEnd(await signed({ method: 'DELETE', path: OFFSITE_PATH })),

    /** Reaches the target now with its key, lists the copy and ships what is pending; a failure is an answer (`ok: false`), not an error. */
    testOffsite: async (): Promise<OffsiteTestResult> => json(await signed({ method: 'POST', path: `${OFFSITE_PATH}/test` })),
  };
}
