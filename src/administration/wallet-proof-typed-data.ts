import { type Hex, hashTypedData } from 'viem';

/**
 * The EIP-712 typed data a new wallet signs to prove it is the caller's to add (version 1,
 * docs/administration.md). Typed data, not a text message: sign-in takes only `personal_sign`
 * signatures of a message (EIP-191), whose digest no typed data has, so a proof can never be
 * replayed as X-MES/X-SIG — the earlier EIP-4361 proof was a valid sign-in as the admin for as long
 * as it lasted. Its domain is its own, as the approval intents' is: neither is the other.
 */
export const WALLET_PROOF_DOMAIN_NAME = 'wallet-admin wallet proof';
export const WALLET_PROOF_VERSION = '1';
export const WALLET_PROOF_PRIMARY_TYPE = 'AddWallet';

const DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
] as const;

const ADD_WALLET_TYPE = [
  { name: 'statement', type: 'string' },
  { name: 'service', type: 'string' },
  { name: 'tenant', type: 'string' },
  { name: 'admin', type: 'string' },
  { name: 'wallet', type: 'address' },
  { name: 'nonce', type: 'bytes32' },
  { name: 'deadline', type: 'uint256' },
] as const;

interface TypedDataField {
  name: string;
  type: string;
}

/** What a wallet proof says, field by field. */
export interface WalletProofMessage {
  /** What signing it does, in words, for the wallet to show. */
  statement: string;
  /** The service's public URL. */
  service: string;
  tenant: string;
  admin: string;
  /** The new wallet, EIP-55. */
  wallet: string;
  /** 0x and 64 hex digits. */
  nonce: string;
  /** Unix seconds: the proof is refused from then on. */
  deadline: number;
}

/** The typed data as eth_signTypedData_v4 takes it (EIP712Domain listed, as wallets expect). */
export interface WalletProofTypedData {
  domain: { name: typeof WALLET_PROOF_DOMAIN_NAME; version: typeof WALLET_PROOF_VERSION; chainId: number };
  types: { EIP712Domain: TypedDataField[]; AddWallet: TypedDataField[] };
  primaryType: typeof WALLET_PROOF_PRIMARY_TYPE;
  message: WalletProofMessage;
}

export function walletProofTypedData(chainId: number, message: WalletProofMessage): WalletProofTypedData {
  return {
    domain: { name: WALLET_PROOF_DOMAIN_NAME, version: WALLET_PROOF_VERSION, chainId },
    types: { EIP712Domain: DOMAIN_TYPE.map((field) => ({ ...field })), AddWallet: ADD_WALLET_TYPE.map((field) => ({ ...field })) },
    primaryType: WALLET_PROOF_PRIMARY_TYPE,
    message,
  };
}

/**
 * The typed data `value` is, rebuilt from its fields, when it is a wallet proof of this version:
 * its domain, primary type and types exactly these. Undefined for anything else (other typed
 * data, a changed type, a member too many or missing), so that only this shape is ever hashed.
 */
export function readWalletProofTypedData(value: unknown): WalletProofTypedData | undefined {
  if (!isRecord(value) || !isRecord(value.domain) || !isRecord(value.message)) return undefined;
  const { domain, message } = value;
  if (domain.name !== WALLET_PROOF_DOMAIN_NAME || domain.version !== WALLET_PROOF_VERSION) return undefined;
  if (typeof domain.chainId !== 'number' || !Number.isSafeInteger(domain.chainId) || domain.chainId < 1) return undefined;
  if (value.primaryType !== WALLET_PROOF_PRIMARY_TYPE) return undefined;
  if (JSON.stringify(value.types) !== JSON.stringify({ EIP712Domain: DOMAIN_TYPE, AddWallet: ADD_WALLET_TYPE })) return undefined;
  const names = ADD_WALLET_TYPE.map((field) => field.name);
  if (Object.keys(message).length !== names.length) return undefined;
  const { statement, service, tenant, admin, wallet, nonce, deadline } = message;
  const texts = [statement, service, tenant, admin, wallet, nonce];
  if (!texts.every((text) => typeof text === 'string')) return undefined;
  if (!/^0x[0-9a-fA-F]{40}$/.test(wallet as string) || !/^0x[0-9a-fA-F]{64}$/.test(nonce as string)) return undefined;
  if (typeof deadline !== 'number' || !Number.isSafeInteger(deadline) || deadline < 0) return undefined;
  return walletProofTypedData(domain.chainId, {
    statement: statement as string,
    service: service as string,
    tenant: tenant as string,
    admin: admin as string,
    wallet: wallet as string,
    nonce: nonce as string,
    deadline,
  });
}

/** The EIP-712 digest a wallet signs for this typed data (keccak256 of 0x1901 ‖ domain ‖ message). */
export function walletProofDigest(typedData: WalletProofTypedData): Uint8Array {
  // The types are this version's (readWalletProofTypedData or walletProofTypedData made it), written here as constants for viem.
  const { domain, message } = typedData;
  const hex = hashTypedData({
    domain,
    types: { AddWallet: ADD_WALLET_TYPE },
    primaryType: WALLET_PROOF_PRIMARY_TYPE,
    message: { ...message, wallet: message.wallet as Hex, nonce: message.nonce as Hex, deadline: BigInt(message.deadline) },
  });
  return Buffer.from(hex.slice(2), 'hex');
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
