import { isAddressEqual, recoverTypedDataAddress } from 'viem';

/**
 * Checks the intents an audit entry carries, offline (docs/audit-chain.md, "Intents"): each EOA
 * approval's signature is recovered from the EIP-712 digest of the typed data and must be its
 * wallet's; a contract wallet's approval (EIP-1271) cannot be checked without asking its chain, so
 * it is reported, not failed; and the distinct admins of the valid approvals must reach `required`.
 * The shapes are read defensively: the input is a file anyone may have edited.
 */

export interface IntentCheck {
  /** Why the intents do not stand; undefined when they do (or stand pending a chain lookup). */
  failure?: string;
  /** EOA approvals whose signature recovered to their wallet. */
  verified: number;
  /** Contract-wallet approvals, which need a chain lookup (EIP-1271) to be checked. */
  needChainLookup: number;
  /** True when only unchecked contract approvals bring the quorum up to `required`. */
  quorumNeedsChainLookup: boolean;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{130}$/;

type Approval = { adminId: string; wallet: `0x${string}`; signature: `0x${string}`; kind: 'eoa' | 'contract' };

export async function checkIntents(intents: unknown): Promise<IntentCheck> {
  const result: IntentCheck = { verified: 0, needChainLookup: 0, quorumNeedsChainLookup: false };
  const fail = (failure: string): IntentCheck => ({ ...result, failure });
  if (!isRecord(intents)) return fail('intents is not an object');
  const { required, typedData, approvals } = intents;
  if (!Number.isSafeInteger(required) || (required as number) < 1) return fail('intents.required is not a whole number of at least 1');
  if (!isRecord(typedData) || !isRecord(typedData.types) || typeof typedData.primaryType !== 'string' || !isRecord(typedData.message)) {
    return fail('intents.typedData is not EIP-712 typed data (domain, types, primaryType, message)');
  }
  if (!Array.isArray(approvals)) return fail('intents.approvals is not a list');

  const valid = new Set<string>();
  const unchecked = new Set<string>();
  for (const [i, raw] of approvals.entries()) {
    const approval = approvalOf(raw);
    if (typeof approval === 'string') return fail(`approval ${i + 1}: ${approval}`);
    if (approval.kind === 'contract') {
      result.needChainLookup++;
      unchecked.add(approval.adminId);
      continue;
    }
    let signer: string;
    try {
      signer = await recoverTypedDataAddress({ ...typedData, signature: approval.signature } as Parameters<
        typeof recoverTypedDataAddress
      >[0]);
    } catch (error) {
      return fail(
        `approval ${i + 1} (${approval.adminId}): the signature cannot be recovered (${(error as Error).message.split('\n')[0]})`,
      );
    }
    if (!isAddressEqual(signer as `0x${string}`, approval.wallet)) {
      return fail(`approval ${i + 1} (${approval.adminId}): signed by ${signer}, not by its wallet ${approval.wallet}`);
    }
    result.verified++;
    valid.add(approval.adminId);
  }
  const need = required as number;
  if (valid.size >= need) return result;
  const withContracts = new Set([...valid, ...unchecked]).size;
  if (withContracts >= need) return { ...result, quorumNeedsChainLookup: true };
  return fail(`quorum not met: ${valid.size} distinct admin${valid.size === 1 ? '' : 's'} approved, ${need} required`);
}

function approvalOf(raw: unknown): Approval | string {
  if (!isRecord(raw)) return 'not an object';
  const { adminId, wallet, signature, kind } = raw;
  if (typeof adminId !== 'string' || adminId === '') return 'no adminId';
  if (typeof wallet !== 'string' || !ADDRESS.test(wallet)) return 'wallet is not an address (0x + 40 hex digits)';
  if (kind !== 'eoa' && kind !== 'contract') return 'kind is neither "eoa" nor "contract"';
  // A contract wallet's signature may have any length (EIP-1271): only an EOA's is 65 bytes.
  if (typeof signature !== 'string' || (kind === 'eoa' && !SIGNATURE.test(signature))) return 'signature is not 65 bytes of hex';
  return { adminId, wallet: wallet as `0x${string}`, signature: signature as `0x${string}`, kind };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
