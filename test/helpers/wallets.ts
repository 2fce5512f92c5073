import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { noteCredential } from './log-secrets.ts';

export interface TestWallet {
  privateKey: `0x${string}`;
  account: PrivateKeyAccount;
  /** EIP-55 checksum form. */
  address: `0x${string}`;
}

export function newWallet(): TestWallet {
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  return { privateKey, account, address: account.address };
}

export interface SiweOverrides {
  /** The optional scheme before the domain (`https://admin.example.com wants you…`); none by default. */
  scheme?: string;
  domain?: string;
  address?: `0x${string}`;
  uri?: string;
  nonce?: string;
  chainId?: number;
  issuedAt?: Date;
  expirationTime?: Date | null;
  notBefore?: Date;
  statement?: string;
}

/** A SIWE message built by viem (a wallet library other than ours), as a dapp would build it. */
export function siweMessage(wallet: Pick<TestWallet, 'address'>, domain: string, overrides: SiweOverrides = {}): string {
  const issuedAt = overrides.issuedAt ?? new Date();
  const expirationTime = overrides.expirationTime === undefined ? new Date(issuedAt.getTime() + 3600_000) : overrides.expirationTime;
  return createSiweMessage({
    domain: overrides.domain ?? domain,
    address: overrides.address ?? wallet.address,
    statement: overrides.statement ?? 'Sign in to wallet-admin tests.',
    uri: overrides.uri ?? `https://${domain}/`,
    version: '1',
    chainId: overrides.chainId ?? 1,
    nonce: overrides.nonce ?? 'abcdefgh12345678',
    issuedAt,
    ...(expirationTime ? { expirationTime } : {}),
    ...(overrides.notBefore ? { notBefore: overrides.notBefore } : {}),
    ...(overrides.scheme !== undefined ? { scheme: overrides.scheme } : {}),
  });
}

export function base64Header(message: string): string {
  return `base64:${Buffer.from(message, 'utf8').toString('base64')}`;
}

export interface AuthHeaders {
  'X-WAL': string;
  'X-SIG': string;
  'X-MES': string;
  'X-Wallet-Address'?: string;
}

/** Signs `message` with personal_sign and returns the request headers a client would send. */
export async function authHeaders(wallet: TestWallet, message: string, options: { raw?: boolean } = {}): Promise<AuthHeaders> {
  const signature = await wallet.account.signMessage({ message });
  const headers = {
    'X-WAL': wallet.address,
    'X-SIG': signature,
    'X-MES': options.raw ? message : base64Header(message),
    'X-Wallet-Address': wallet.address,
  };
  // Known to the log scan however the test sends them (request(), fetch, curl, the client library).
  noteCredential(headers['X-SIG']);
  noteCredential(headers['X-MES']);
  return headers;
}

/** Headers for a fresh SIWE sign-in of `wallet` to `domain`. */
export async function signIn(wallet: TestWallet, domain: string, overrides: SiweOverrides = {}): Promise<AuthHeaders> {
  return authHeaders(wallet, siweMessage(wallet, domain, overrides));
}

/** A fresh sign-in of `wallet` whose signature has one hex digit changed: a bad signature, well formed. */
export async function badSignatureHeaders(wallet: TestWallet, domain: string): Promise<AuthHeaders> {
  const good = await signIn(wallet, domain);
  const flipped = good['X-SIG'].slice(0, 10) + (good['X-SIG'][10] === 'a' ? 'b' : 'a') + good['X-SIG'].slice(11);
  return { ...good, 'X-SIG': flipped };
}

/** A wallet's eth_signTypedData_v4 signature of typed data as the service publishes it (EIP712Domain listed, as wallets take it). */
export function signTypedData(
  wallet: TestWallet,
  typedData: { domain: object; types: Record<string, unknown>; primaryType: string; message: object },
): Promise<`0x${string}`> {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return wallet.account.signTypedData({ ...typedData, types } as never);
}
