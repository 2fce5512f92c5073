import { AppError } from '../../errors/app-error.ts';
import type { Command } from '../command.ts';
import { optionalString, stringOption } from '../command.ts';

function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new AppError('VALIDATION_FAILED', `--${name} must be a positive whole number (got "${value}")`);
  return Number(value);
}

export const signCommand: Command = {
  words: ['sign'],
  summary: 'Sign in as a wallet: print the four request headers for a fresh signed message',
  options: {
    'private-key': { type: 'string', required: true, description: 'Wallet private key, 64 hex digits' },
    domain: { type: 'string', description: 'SIWE domain (default: first of AUTH_DOMAINS)' },
    uri: { type: 'string', description: 'SIWE URI (default: PUBLIC_BASE_URL)' },
    'chain-id': { type: 'string', description: 'Chain id (default 1)' },
    ttl: { type: 'string', description: 'Seconds until the message expires (default 3600)' },
    nonce: { type: 'string', description: 'Nonce, e.g. from GET /api/auth/nonce (default: random)' },
    plain: { type: 'boolean', description: 'Sign a single-line timestamped message instead of SIWE' },
  },
  async run({ values, config }) {
    // viem's key handling takes about 0.15 s to load: only this command pays for it.
    const { createSignInHeaders } = await import('../../auth/signing/sign-in-headers.ts');
    const headers = await createSignInHeaders({
      privateKey: stringOption(values, 'private-key'),
      domain: optionalString(values, 'domain') ?? config.auth.domains[0]!,
      uri: optionalString(values, 'uri') ?? config.publicBaseUrl,
      chainId: positiveInteger(optionalString(values, 'chain-id'), 'chain-id'),
      ttlSeconds: positiveInteger(optionalString(values, 'ttl'), 'ttl'),
      nonce: optionalString(values, 'nonce'),
      plain: values.plain === true,
    });
    return {
      json: { ...headers },
      text: Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\n'),
    };
  },
};
