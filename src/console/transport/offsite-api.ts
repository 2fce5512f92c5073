import type {
  TenantOffsite as ClientTenantOffsite,
  OffsiteTestResult,
  TenantOffsiteSettings,
  TenantOffsiteStatus,
  WalletAdminClient,
} from '../../client/index.ts';
import { ProblemError } from '../../client/index.ts';

/**
 * The tenant's own off-site copy (docs/offsite.md, "A tenant's own copy") as the page uses it,
 * through the typed client like every other page: GET, PUT and DELETE /api/offsite and POST
 * /api/offsite/test. A refusal is thrown as ProblemError, a change a policy holds (202) as
 * HeldForApproval; a target not set is null, not an error.
 */
export type OffsiteStatus = TenantOffsiteStatus;
export type OffsiteHead = NonNullable<TenantOffsiteStatus['head']>;
export type TenantOffsite = ClientTenantOffsite;
export type OffsiteTargetRequest = TenantOffsiteSettings;
export type OffsiteCheck = OffsiteTestResult;

interface OffsiteApiOptions {
  /** A 401 or 403 of these requests: a narrowed admin is read again, a suspended one signed out. */
  onRefused?(refusal: ProblemError): void;
}

export function offsiteApi(client: WalletAdminClient, options: OffsiteApiOptions = {}) {
  const watched = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ProblemError && (error.status === 401 || error.status === 403)) options.onRefused?.(error);
      throw error;
    }
  };
  return {
    /** The target and how shipping there stands; null when the tenant has set none (OFFSITE_NOT_SET). */
    async get(): Promise<TenantOffsite | null> {
      try {
        return await watched(() => client.getOffsite());
      } catch (error) {
        if (error instanceof ProblemError && error.code === 'OFFSITE_NOT_SET') return null;
        throw error;
      }
    },
    /** Sets or replaces the target (offsite.change, which a policy may hold: HeldForApproval). */
    set: (target: OffsiteTargetRequest): Promise<TenantOffsite> => watched(() => client.setOffsite(target)),
    /** Stops shipping: nothing at the target is deleted (a policy may hold it too). */
    remove: (): Promise<void> => watched(() => client.removeOffsite()),
    /** Reaches the target now, lists the copy and ships what is pending; a failure is an answer (ok: false), not an error. */
    test: (): Promise<OffsiteCheck> => watched(() => client.testOffsite()),
  };
}

export type OffsiteApi = ReturnType<typeof offsiteApi>;
