import type { AdministrationAudit } from '../administration/administration-audit.ts';
import type { AdministrationServices } from '../administration/administration-services.ts';
import type { ContractWalletVerifier } from '../auth/contract-wallet-verifier.ts';
import type { AddressRecoverer } from '../auth/signature/address-recoverer.ts';
import type { Config } from '../config/config.ts';
import type { BackupLocks } from '../files/backup-locks.ts';
import type { ScopeRestoreService } from '../files/scope-restore-service.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { HeldAdministration } from './held-administration.ts';
import { HeldBackupLocks } from './held-backup-locks.ts';
import { HeldRestores } from './held-restores.ts';
import { IntentSignatures } from './intent-signatures.ts';
import { PolicyService } from './policy-service.ts';
import { ProposalService } from './proposal-service.ts';

export interface ApprovalServices {
  proposals: ProposalService;
  policies: PolicyService;
  restores: HeldRestores;
  administration: HeldAdministration;
  backupLocks: HeldBackupLocks;
}

/** Policies, proposals and the held operations, built once over the store and the services they hold (docs/approvals.md). */
export function approvalServices(deps: {
  config: Config;
  store: MetadataStore;
  audit: AdministrationAudit;
  administration: AdministrationServices;
  scopeRestores: ScopeRestoreService;
  backupLocks: BackupLocks;
  recoverer: AddressRecoverer;
  contractWallets: ContractWalletVerifier | undefined;
  now?: () => number;
}): ApprovalServices {
  const { config, store, audit } = deps;
  const proposals = new ProposalService(
    store,
    new IntentSignatures(deps.recoverer, deps.contractWallets),
    { service: config.publicBaseUrl, chainId: config.auth.chainIds?.[0] ?? 1, proposalSeconds: config.proposalSeconds },
    ({ proposal, step, by, intents }) =>
      audit.record({
        intents,
        tenantId: proposal.tenantId,
        adminId: by,
        action: `proposal.${step}`,
        channelId: proposal.channelId,
        before: null,
        after: {
          proposalId: proposal.id,
          operation: proposal.operation,
          status: proposal.status,
          reason: proposal.reason,
          summary: proposal.summary,
        },
      }),
    deps.now,
  );
  const policies = new PolicyService(
    proposals,
    store,
    (policy, before, by) =>
      audit.record({
        tenantId: policy.tenantId,
        adminId: by,
        action: 'policy.change',
        channelId: policy.channelId,
        before: { rules: before.rules, revision: before.revision },
        after: { rules: policy.rules, revision: policy.revision },
      }),
    deps.now,
  );
  return {
    proposals,
    policies,
    restores: new HeldRestores(proposals, deps.scopeRestores, store),
    backupLocks: new HeldBackupLocks(proposals, deps.backupLocks, store),
    administration: new HeldAdministration(proposals, deps.administration.admins, deps.administration.invitations, store),
  };
}
