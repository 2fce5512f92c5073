import type { HeldOffsite } from '../../../approvals/held-offsite.ts';
import type { ProposalService } from '../../../approvals/proposal-service.ts';
import type { TenantOffsiteService } from '../../../offsite/tenant/tenant-offsite-service.ts';

/** What the tenant's off-site routes need (docs/offsite.md): services only. */
export interface OffsiteRouteDeps {
  offsite: TenantOffsiteService;
  /** Setting and removing the target, which a policy may hold (offsite.change). */
  held: HeldOffsite;
  proposals: ProposalService;
}
