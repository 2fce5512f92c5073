import type { AuditEvent, AuditLog, TenantAuditFilter } from '../model/audit.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import { adminsBelow, isOwner, requireHeld } from './admin-rules.ts';
import type { AdministrationStore } from './admin-service.ts';
import { tenantView } from './tenant-views.ts';

/**
 * A tenant's whole audit log for holders of audit:read: an owner sees every event; a sub-admin
 * those of the channels linked to it and those acting on itself and the admins below it.
 */
export class TenantAudit {
  constructor(
    private readonly store: AdministrationStore,
    private readonly log: Pick<AuditLog, 'listTenantAudit'>,
  ) {}

  async list(actorId: string, filter: Omit<TenantAuditFilter, 'visibleTo'>, page: PageRequest): Promise<Page<AuditEvent>> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'audit:read');
    const visibleTo = isOwner(view.actor)
      ? undefined
      : { channelIds: view.actor.channelIds, adminIds: [view.actor.id, ...adminsBelow(view.admins, view.actor.id)] };
    return this.log.listTenantAudit(view.actor.tenantId, page, { ...filter, visibleTo });
  }
}
