import type { AdminService } from '../../../administration/admin-service.ts';
import type { AdministrationAudit } from '../../../administration/administration-audit.ts';
import type { AdministrationServices } from '../../../administration/administration-services.ts';
import type { ChannelManagement } from '../../../administration/channel-management.ts';
import type { InvitationService } from '../../../administration/invitation-service.ts';
import type { QuotaManagement } from '../../../administration/quota-management.ts';
import type { TenantAudit } from '../../../administration/tenant-audit.ts';
import type { ApprovalServices } from '../../../approvals/approval-services.ts';
import type { HeldAdministration } from '../../../approvals/held-administration.ts';
import type { ProposalService } from '../../../approvals/proposal-service.ts';
import type { WalletAuthenticator } from '../../../auth/wallet-authenticator.ts';
import { AdminNames } from '../../../files/admin-names.ts';
import type { AdminNameLookup } from '../../../model/admins.ts';
import type { TenantRecords } from '../../../model/tenants.ts';

/** What the administration routes need (docs/administration.md): services only. */
export interface AdministrationRouteDeps {
  admins: AdminService;
  channels: ChannelManagement;
  invitations: InvitationService;
  /** Usage and quotas (docs/quotas.md). */
  quotas: QuotaManagement;
  audit: TenantAudit;
  /** A tenant's features, which every admin record shows with its own. */
  tenants: Pick<TenantRecords, 'getTenant'>;
  adminNames: AdminNames;
  /** Signs in the wallet accepting an invitation, which is no admin's yet. */
  newcomers: Pick<WalletAuthenticator, 'authenticateNewcomer'>;
  /** Where the console is, for the invitation's link. */
  publicBaseUrl: string;
  /** The administration operations a policy may hold (docs/approvals.md), and the proposals they become. */
  held: HeldAdministration;
  /** Records the administration refusals of the routes that declare auditRefusalsAs (refusal-audit.ts). */
  entries: Pick<AdministrationAudit, 'refused'>;
  proposals: ProposalService;
}

/** The features of the tenant, shown in each of its admins' records. */
export async function tenantFeatures(deps: Pick<AdministrationRouteDeps, 'tenants'>, tenantId: string): Promise<string[]> {
  return (await deps.tenants.getTenant(tenantId))?.features ?? [];
}

/** The routes' services over the administration services, the store's tenants and admins' names. */
export function administrationRouteDeps(
  services: AdministrationServices,
  approvals: Pick<ApprovalServices, 'administration' | 'proposals'>,
  directory: Pick<TenantRecords, 'getTenant'> & AdminNameLookup,
  newcomers: AdministrationRouteDeps['newcomers'],
  publicBaseUrl: string,
): AdministrationRouteDeps {
  return {
    ...services,
    tenants: directory,
    adminNames: new AdminNames(directory),
    newcomers,
    publicBaseUrl,
    held: approvals.administration,
    proposals: approvals.proposals,
  };
}
