import type { ContractWalletVerifier } from '../auth/contract-wallet-verifier.ts';
import type { AddressRecoverer } from '../auth/signature/address-recoverer.ts';
import type { Config } from '../config/config.ts';
import type { Logger } from '../logging/logger.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { AdminService, type SignInState } from './admin-service.ts';
import { AdministrationAudit } from './administration-audit.ts';
import { ChannelManagement } from './channel-management.ts';
import { InvitationService } from './invitation-service.ts';
import { QuotaManagement } from './quota-management.ts';
import { TenantAudit } from './tenant-audit.ts';
import { WalletProofs } from './wallet-proofs.ts';

export interface AdministrationServices {
  admins: AdminService;
  channels: ChannelManagement;
  invitations: InvitationService;
  /** Usage and quotas (docs/quotas.md). */
  quotas: QuotaManagement;
  audit: TenantAudit;
  /** Appends the administration entries (each in its change's transaction) and records refusals, for every service that changes a tenant. */
  entries: AdministrationAudit;
}

/** The tenant self-service, built once over the store (docs/administration.md). */
export function administrationServices(deps: {
  config: Config;
  store: MetadataStore;
  logger: Logger;
  signIns: SignInState;
  recoverer: AddressRecoverer;
  contractWallets: ContractWalletVerifier | undefined;
}): AdministrationServices {
  const { config, store, logger, signIns } = deps;
  const audit = new AdministrationAudit(store.files, logger);
  const proofs = new WalletProofs(store, deps.recoverer, deps.contractWallets, {
    service: config.publicBaseUrl,
    defaultChainId: config.auth.chainIds?.[0] ?? 1,
    chainIds: config.auth.chainIds,
  });
  return {
    admins: new AdminService(store, audit, signIns, proofs),
    channels: new ChannelManagement(store, audit, signIns),
    invitations: new InvitationService(store, audit, signIns, config.invitationMaxSeconds),
    quotas: new QuotaManagement(store, audit),
    audit: new TenantAudit(store, store.files),
    entries: audit,
  };
}
