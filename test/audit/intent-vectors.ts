import type { AuditIntents, TypedIntent } from '../../src/model/audit.ts';
import { newWallet, type TestWallet } from '../helpers/wallets.ts';

/**
 * Intents as the lead's proposals will store them (docs/audit-chain.md, "Intents"), signed for real
 * with test wallets through viem's signTypedData (eth_signTypedData_v4), so that the verifier
 * recovers real signatures. The typed data's numbers beyond 2^53 are decimal strings, as JSON carries them.
 */
export function intentTypedData(overrides: Partial<Record<string, unknown>> = {}): TypedIntent {
  return {
    domain: { name: 'wallet-admin', version: '1', chainId: 1 },
    types: {
      Intent: [
        { name: 'operation', type: 'string' },
        { name: 'tenant', type: 'string' },
        { name: 'channel', type: 'string' },
        { name: 'delete', type: 'bool' },
        { name: 'planEtag', type: 'string' },
        { name: 'nonce', type: 'string' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Intent',
    message: {
      operation: 'channel.restore',
      tenant: 't_example',
      channel: 'chn_example',
      delete: true,
      planEtag: '"p1"',
      nonce: 'n-1',
      deadline: '1893456000',
      ...overrides,
    },
  };
}

export async function approvalBy(wallet: TestWallet, adminId: string, typedData: TypedIntent) {
  const signature = await wallet.account.signTypedData(typedData as never);
  return { adminId, wallet: wallet.address, signature, kind: 'eoa' as const };
}

/** `signers` distinct admins' approvals of one intent that needs `required`. */
export async function signedIntents(signers: number, required: number): Promise<AuditIntents> {
  const typedData = intentTypedData();
  const approvals = [];
  for (let i = 0; i < signers; i++) approvals.push(await approvalBy(newWallet(), `adm_signer${i}`, typedData));
  return { proposalId: 'prp_example', operation: 'channel.restore', required, permission: 'files:restore', typedData, approvals };
}
