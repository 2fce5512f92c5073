import type { AuditIntentsSummary } from '../../client/index.ts';
import { shortAddress } from '../ui/format.ts';
import { proposalHref } from '../ui/held-notice.tsx';
import { AdminName } from './admin-name.tsx';

/**
 * An entry a held operation's signed intents made run: "signed by n admins", which opens to who
 * approved, with which wallet and how (an EOA's signature is checked offline, a contract wallet's
 * needs its chain), and the proposal. The signatures themselves are checked by "Verify the log".
 */
export function IntentsMarker({ intents, adminName }: { intents: AuditIntentsSummary; adminName(id: string): string | null }) {
  const admins = new Set(intents.approvals.map((approval) => approval.adminId)).size;
  return (
    <details class="intents">
      <summary>
        Signed by {admins} {admins === 1 ? 'admin' : 'admins'}
        <span class="visually-hidden"> (of {intents.required} required)</span>
      </summary>
      <p class="muted">
        {intents.operation}: {intents.required} of the admins with <code>{intents.permission}</code>. Proposal{' '}
        <a href={proposalHref(intents.proposalId)}>
          <code>{intents.proposalId}</code>
        </a>
      </p>
      <ul class="plain-list intents-approvals" aria-label="Approvals">
        {intents.approvals.map((approval) => (
          <li key={`${approval.adminId}/${approval.wallet}`}>
            <AdminName id={approval.adminId} name={adminName(approval.adminId)} />{' '}
            <code title={approval.wallet}>{shortAddress(approval.wallet)}</code>{' '}
            <span class="muted">{approval.kind === 'eoa' ? 'wallet key (EOA)' : 'contract wallet (EIP-1271)'}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
