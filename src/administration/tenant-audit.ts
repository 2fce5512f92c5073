import { exportLine, storedEntry } from '../audit-chain/chain-entry.ts';
import { AppError } from '../errors/app-error.ts';
import type { AuditEvent, AuditHead, AuditLog, TenantAuditFilter } from '../model/audit.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import { adminsBelow, isOwner, requireHeld } from './admin-rules.ts';
import type { AdministrationStore } from './admin-service.ts';
import { tenantView } from './tenant-views.ts';

/** Entries read per query of an export: a keyset page, so memory stays flat however long the log. */
const EXPORT_PAGE = 500;

/**
 * A tenant's whole audit log for holders of audit:read: an owner sees every event; a sub-admin
 * those of the channels linked to it and those acting on itself and the admins below it.
 */
export class TenantAudit {
  constructor(
    private readonly store: AdministrationStore,
    private readonly log: Pick<AuditLog, 'listTenantAudit' | 'auditHead' | 'chainedAudit'>,
  ) {}

  async list(actorId: string, filter: Omit<TenantAuditFilter, 'visibleTo'>, page: PageRequest): Promise<Page<AuditEvent>> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'audit:read');
    const visibleTo = isOwner(view.actor)
      ? undefined
      : { channelIds: view.actor.channelIds, adminIds: [view.actor.id, ...adminsBelow(view.admins, view.actor.id)] };
    return this.log.listTenantAudit(view.actor.tenantId, page, { ...filter, visibleTo });
  }

  /** The tenant's chain head (docs/audit-chain.md): for whoever may export the chain. */
  async head(actorId: string): Promise<AuditHead> {
    return this.log.auditHead(await this.wholeLogOf(actorId));
  }

  /**
   * The tenant's chain after seq `afterSeq`, oldest first, one JSON line per entry. The permission
   * is checked before the first line, so a refusal is an answer of its own, not a broken stream.
   */
  async exportLines(actorId: string, afterSeq: number): Promise<AsyncIterable<string>> {
    return chainExport(this.log, await this.wholeLogOf(actorId), afterSeq);
  }

  /**
   * The chain is the tenant's whole log, so only an admin who sees the whole log may have it: one
   * holding audit:read with the tenant-wide view (an owner). A sub-admin's part of the log has holes
   * no verifier could tell from entries removed, and the entries it may not see would be in it.
   */
  private async wholeLogOf(actorId: string): Promise<string> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'audit:read');
    if (!isOwner(view.actor)) {
      throw new AppError(
        'PERMISSION_DENIED',
        "The audit chain is the tenant's whole log: only an owner, who sees all of it, may read its head or export it",
      );
    }
    return view.actor.tenantId;
  }
}

/**
 * A chain after seq `afterSeq` (a tenant's, or the service-wide one), oldest first, as the export
 * writes it: the entries as stored, one canonical JSON line each, a page of lines at a time.
 */
export async function* chainExport(log: Pick<AuditLog, 'chainedAudit'>, chainId: string, afterSeq: number): AsyncIterable<string> {
  let after = afterSeq;
  for (;;) {
    const page = await log.chainedAudit(chainId, after, EXPORT_PAGE);
    if (page.length > 0) yield page.map((chained) => exportLine(storedEntry(chained))).join('');
    if (page.length < EXPORT_PAGE) return;
    after = page[page.length - 1]!.seq;
  }
}
