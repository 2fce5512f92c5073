import type { AdministrationAudit } from '../administration/administration-audit.ts';
import type { AdministrationServices } from '../administration/administration-services.ts';
import type { ContractWalletVerifier } from '../auth/contract-wallet-verifier.ts';
import type { AddressRecoverer } from '../auth/signature/address-recoverer.ts';
import type { Config } from '../config/config.ts';
import type { BackupLocks } from '../files/backup-locks.ts';
import type { ScopeRestoreService } from '../files/scope-restore-service.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { TenantOffsiteService } from '../offsite/tenant/tenant-offsite-service.ts';
import type { WebhookService } from '../webhooks/webhook-service.ts';
import { HeldAdministration } from './held-administration.ts';
import { HeldBackupLocks } from './held-backup-locks.ts';
import { HeldOffsite } from './held-offsite.ts';
import { HeldRestores } from './held-restores.ts';
import { HeldWebhooks } from './held-webhooks.ts';
import { IntentSignatures } from './intent-signatures.ts';
import { PolicyService } from './policy-service.ts';
import { ProposalService } from './proposal-service.ts';

export interface ApprovalServices {
  proposals: ProposalService;
  policies: PolicyService;
  restores: HeldRestores;
  administration: HeldAdministration;
  backupLocks: HeldBackupLocks;
  webhooks: HeldWebhooks;
  offsite: HeldOffsite;
}

/** Takeovers of one proposal's run before it is marked failed (proposal-service.ts). */
const RUN_ATTEMPTS = 3;

/** Policies, proposals and the held operations, built once over the store and the services they hold (docs/approvals.md). */
export function approvalServices(deps: {
  config: Config;
  store: MetadataStore;
  audit: AdministrationAudit;
  administration: AdministrationServices;
  scopeRestores: ScopeRestoreService;
  backupLocks: BackupLocks;
  webhooks: WebhookService;
  offsite: TenantOffsiteService;
  recoverer: AddressRecoverer;
  contractWallets: ContractWalletVerifier | undefined;
  now?: () => number;
}): ApprovalServices {
  const { config, store, audit } = deps;
  const proposals = new ProposalService(
    store,
    new IntentSignatures(deps.recoverer, deps.contractWallets),
    { service: config.publicBaseUrl, chainId: config.auth.chainIds?.[0] ?? 1, proposalSeconds: config.proposalSeconds },
    audit,
    { leaseMs: config.proposalRunLeaseSeconds * 1000, maxAttempts: RUN_ATTEMPTS },
    deps.now,
  );
  const policies = new PolicyService(proposals, store, audit, deps.now);
  return {
    proposals,
    policies,
    restores: new HeldRestores(proposals, deps.scopeRestores, store),
    backupLocks: new HeldBackupLocks(proposals, deps.backupLocks, store),
    administration: new HeldAdministration(proposals, deps.administration.admins, deps.administration.invitations, store),
    webhooks: new HeldWebhooks(proposals, deps.webhooks),
    offsite: new HeldOffsite(proposals, deps.offsite),
  };
}
