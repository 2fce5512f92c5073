import { privateKeyToAccount } from 'viem/accounts';
import { AppError } from '../../errors/app-error.ts';
import { formatRfc3339 } from '../../time/rfc3339.ts';
import { encodeMessageHeader } from '../message-header.ts';
import { randomNonce } from '../nonces.ts';
import { formatSiweMessage } from '../siwe/siwe-message.ts';

/** What shapes a sign-in message, whoever signs it. */
export interface MessageOptions {
  domain: string;
  uri: string;
  chainId?: number;
  ttlSeconds?: number;
  nonce?: string;
  /** A single-line timestamped message instead of SIWE (for AUTH_PLAIN_MESSAGES=timestamped). */
  plain?: boolean;
  statement?: string;
  now?: Date;
}

export interface SignInOptions extends MessageOptions {
  privateKey: string;
}

export interface SignInHeaders {
  'X-WAL': string;
  'X-SIG': string;
  'X-MES': string;
  'X-Wallet-Address': string;
}

const PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/** The exact message a wallet signs to sign in as `address` (EIP-55 form, as it appears in SIWE). */
export function buildSignInMessage(address: string, options: MessageOptions): string {
  const now = options.now ?? new Date();
  const ttlSeconds = options.ttlSeconds ?? 3600;
  return options.plain
    ? `Sign in to ${options.domain} at ${formatRfc3339(now.getTime())}`
    : formatSiweMessage({
        domain: options.domain,
        address,
        statement: options.statement ?? 'Sign in to wallet-admin.',
        uri: options.uri,
        version: '1',
        chainId: options.chainId ?? 1,
        nonce: options.nonce ?? randomNonce(),
        issuedAt: formatRfc3339(now.getTime()),
        expirationTime: formatRfc3339(now.getTime() + ttlSeconds * 1000),
      });
}

export function signInHeaders(address: string, signature: string, message: string): SignInHeaders {
  return { 'X-WAL': address, 'X-SIG': signature, 'X-MES': encodeMessageHeader(message), 'X-Wallet-Address': address };
}

/** What a wallet does to sign in: build the message, personal_sign it, put it into headers. */
export async function createSignInHeaders(options: SignInOptions): Promise<SignInHeaders> {
  if (!PRIVATE_KEY.test(options.privateKey)) {
    throw new AppError('VALIDATION_FAILED', 'The private key must be 64 hexadecimal digits, with or without 0x');
  }
  const key = (options.privateKey.startsWith('0x') ? options.privateKey : `0x${options.privateKey}`) as `0x${string}`;
  const account = privateKeyToAccount(key);
  const message = buildSignInMessage(account.address, options);
  const signature = await account.signMessage({ message: { raw: new TextEncoder().encode(message) } });
  return signInHeaders(account.address, signature, message);
}

export function curlCommand(url: string, headers: SignInHeaders): string {
  const lines = Object.entries(headers).map(([name, value]) => `  -H '${name}: ${value}'`);
  return [`curl -sS '${url}' \\`, lines.join(' \\\n')].join('\n');
}
