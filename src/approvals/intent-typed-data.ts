import { type Hex, hashTypedData } from 'viem';

/**
 * The EIP-712 typed data of an intent, version 1 (docs/approvals.md). The service builds it once,
 * when a proposal is made, stores it as published, and checks signatures against exactly that:
 * clients sign what they are given and never build it. A new field or meaning is a new version.
 */
export const INTENT_DOMAIN_NAME = 'wallet-admin intent';
export const INTENT_VERSION = '1';

const DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
] as const;

const INTENT_TYPE = [
  { name: 'service', type: 'string' },
  { name: 'proposal', type: 'string' },
  { name: 'operation', type: 'string' },
  { name: 'tenant', type: 'string' },
  { name: 'channel', type: 'string' },
  { name: 'scope', type: 'string' },
  { name: 'source', type: 'string' },
  { name: 'delete', type: 'bool' },
  { name: 'target', type: 'string' },
  { name: 'details', type: 'string' },
  { name: 'planEtag', type: 'string' },
  { name: 'admin', type: 'string' },
  { name: 'nonce', type: 'bytes32' },
  { name: 'deadline', type: 'uint256' },
] as const;

/** What an intent says, field by field (strings empty where the operation has no such thing). */
export interface IntentMessage {
  service: string;
  proposal: string;
  operation: string;
  tenant: string;
  channel: string;
  scope: string;
  source: string;
  delete: boolean;
  target: string;
  details: string;
  planEtag: string;
  admin: string;
  /** 0x and 64 hex digits. */
  nonce: string;
  /** Unix seconds. */
  deadline: number;
}

/** The typed data as eth_signTypedData_v4 takes it (EIP712Domain listed, as wallets expect). */
export interface IntentTypedData {
  domain: { name: string; version: string; chainId: number };
  types: { EIP712Domain: typeof DOMAIN_TYPE; Intent: typeof INTENT_TYPE };
  primaryType: 'Intent';
  message: IntentMessage;
}

export function intentTypedData(chainId: number, message: IntentMessage): IntentTypedData {
  return {
    domain: { name: INTENT_DOMAIN_NAME, version: INTENT_VERSION, chainId },
    types: { EIP712Domain: DOMAIN_TYPE, Intent: INTENT_TYPE },
    primaryType: 'Intent',
    message,
  };
}

/** The EIP-712 digest a wallet signs for this typed data (keccak256 of 0x1901 ‖ domain ‖ message). */
export function intentDigest(typedData: IntentTypedData): Uint8Array {
  const { domain, types, message } = typedData;
  const hex = hashTypedData({
    domain,
    types: { Intent: types.Intent },
    primaryType: 'Intent',
    message: { ...message, nonce: message.nonce as Hex, deadline: BigInt(message.deadline) },
  });
  return Buffer.from(hex.slice(2), 'hex');
}
