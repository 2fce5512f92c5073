import type { FastifyRequest } from 'fastify';
import type { AdministrationAudit } from '../../administration/administration-audit.ts';
import type { AppError } from '../../errors/app-error.ts';
import type { AdministrationAction } from '../../model/audit.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The administration change this route makes: when it refuses (or fails for) a signed-in admin,
     * the tenant's audit log records that, as it records the change when it is made.
     */
    auditRefusalsAs?: AdministrationAction;
  }
}

/** The longest id a refusal's entry keeps of what the request named (an id is far shorter). */
const ID_LIMIT = 100;

/**
 * What the error handler calls with every error answer (error-handler.ts): the refusal of a route
 * that declares `auditRefusalsAs`, to a signed-in admin, goes to its tenant's log (at most a few a
 * minute per admin: AdministrationAudit.refused). A request refused before it was signed in names
 * nobody, and is only counted (metrics, the failure limit).
 */
export function refusalRecorder(audit: Pick<AdministrationAudit, 'refused'>): (request: FastifyRequest, error: AppError) => Promise<void> {
  return async (request, error) => {
    const action = request.routeOptions.config?.auditRefusalsAs;
    const principal = request.authentication?.principal;
    if (action === undefined || principal === undefined) return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    await audit.refused(
      {
        tenantId: principal.tenantId,
        adminId: principal.id,
        action,
        targetAdminId: typeof params.adminId === 'string' ? params.adminId.slice(0, ID_LIMIT) : null,
        // The channel a channel route entered, when it got that far.
        channelId: request.channelTarget?.channel.id ?? null,
      },
      error,
    );
  };
}
