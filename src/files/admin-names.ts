import type { AdminNameLookup } from '../model/admins.ts';
import type { Channel } from '../model/channels.ts';

/** Admin id → display name, for one answer. */
export type AdminNameMap = ReadonlyMap<string, string>;

/**
 * The display names of the admins an answer names by id (who acted in the audit log, who made a
 * backup, who deleted a file), looked up once per answer: people read names, ids are for filters
 * and scripts. The name is the admin's name now; an admin of another tenant is never named.
 */
export class AdminNames {
  constructor(private readonly admins: AdminNameLookup) {}

  of(channel: Channel, ids: Iterable<string | null>): Promise<AdminNameMap> {
    return this.inTenant(channel.tenantId, ids);
  }

  async inTenant(tenantId: string, ids: Iterable<string | null>): Promise<AdminNameMap> {
    const wanted = new Set<string>();
    for (const id of ids) if (id !== null) wanted.add(id);
    if (wanted.size === 0) return new Map();
    return this.admins.adminDisplayNames(tenantId, [...wanted]);
  }
}
