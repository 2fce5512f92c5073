import { AppError } from '../../errors/app-error.ts';
import type { Command, CommandResult, OptionValues } from '../command.ts';
import { optionalString, UsageError } from '../command.ts';
import { readOptionFile, readPassword, readPipedInput } from '../secret-input.ts';

/** A SIWE message is a few hundred bytes; the service takes at most MAX_HEADER_BYTES of headers. */
const MESSAGE_MAX_BYTES = 64 * 1024;

/** The ways to sign; exactly one per run. */
const MODES = ['keystore', 'print-message', 'signature', 'private-key'] as const;
/** What shapes a new message: meaningless for a message already signed (--signature). */
const MESSAGE_OPTIONS = ['domain', 'uri', 'chain-id', 'ttl', 'nonce', 'plain'] as const;

function positiveInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new AppError('VALIDATION_FAILED', `--${name} must be a positive whole number (got "${value}")`);
  return Number(value);
}

function checkCombination(values: OptionValues): (typeof MODES)[number] {
  const modes = MODES.filter((mode) => values[mode] !== undefined && values[mode] !== false);
  if (modes.length !== 1) {
    throw new UsageError(
      modes.length === 0
        ? 'Say how to sign: --keystore FILE, --print-message (then --signature) or --private-key (development key only)'
        : `Give only one of ${modes.map((m) => `--${m}`).join(', ')}`,
    );
  }
  const mode = modes[0]!;
  const onlyWith = (option: string, allowed: readonly string[]) => {
    if (values[option] !== undefined && !allowed.includes(mode))
      throw new UsageError(`--${option} goes with ${allowed.map((m) => `--${m}`).join(' or ')}`);
  };
  onlyWith('password-file', ['keystore']);
  onlyWith('password-env', ['keystore']);
  onlyWith('message-file', ['signature']);
  onlyWith('address', ['print-message', 'signature']);
  for (const option of MESSAGE_OPTIONS) onlyWith(option, ['keystore', 'print-message', 'private-key']);
  if (mode === 'print-message' && values.address === undefined && values.plain !== true) {
    throw new UsageError('--print-message needs --address 0x… (the wallet that will sign)');
  }
  return mode;
}

function headerLines(headers: object): CommandResult {
  return {
    json: { ...headers },
    text: Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  };
}

export const signCommand: Command = {
  words: ['sign'],
  summary: 'Sign in as a wallet: print the four request headers for a fresh signed message',
  options: {
    keystore: {
      type: 'string',
      placeholder: 'FILE',
      description: 'Sign with the key in this Ethereum JSON keystore v3 file (geth, Foundry, ethers, MyEtherWallet)',
    },
    'password-file': { type: 'string', placeholder: 'FILE', description: "The keystore's password is this file's first line" },
    'password-env': {
      type: 'string',
      placeholder: 'NAME',
      description: "The keystore's password is this environment variable's value (default: asked on the terminal)",
    },
    'print-message': {
      type: 'boolean',
      description: 'Print the exact message for --address to sign with any wallet (nothing else, no newline when piped)',
    },
    address: {
      type: 'string',
      placeholder: '0x…',
      description: 'The wallet that signs, 0x + 40 hex digits (with --print-message; with --signature, checked)',
    },
    signature: {
      type: 'string',
      placeholder: '0x…',
      description: "A wallet's personal_sign signature of the message: print the headers once it checks out",
    },
    'message-file': {
      type: 'string',
      placeholder: 'FILE',
      description: 'With --signature: the signed message, byte for byte (default: read from stdin)',
    },
    'private-key': {
      type: 'string',
      placeholder: 'KEY',
      description: 'Sign with this raw key, 64 hex digits: only for the published development key (argv is visible)',
    },
    domain: { type: 'string', placeholder: 'HOST', description: 'SIWE domain (default: first of AUTH_DOMAINS)' },
    uri: { type: 'string', placeholder: 'URI', description: 'SIWE URI (default: PUBLIC_BASE_URL)' },
    'chain-id': { type: 'string', placeholder: 'ID', description: 'Chain id (default 1)' },
    ttl: { type: 'string', placeholder: 'SECONDS', description: 'Seconds until the message expires (default 3600)' },
    nonce: { type: 'string', placeholder: 'NONCE', description: 'Nonce, e.g. from GET /api/auth/nonce (default: random)' },
    plain: { type: 'boolean', description: 'Sign a single-line timestamped message instead of SIWE' },
  },
  async run({ values, config }) {
    const mode = checkCombination(values);
    const messageOptions = {
      domain: optionalString(values, 'domain') ?? config.auth.domains[0]!,
      uri: optionalString(values, 'uri') ?? config.publicBaseUrl,
      chainId: positiveInteger(optionalString(values, 'chain-id'), 'chain-id'),
      ttlSeconds: positiveInteger(optionalString(values, 'ttl'), 'ttl'),
      nonce: optionalString(values, 'nonce'),
      plain: values.plain === true,
    };
    // viem's key handling takes about 0.15 s to load: only this command pays for it.
    const signing = await import('../../auth/signing/sign-in-headers.ts');

    if (mode === 'print-message') {
      const address = optionalString(values, 'address');
      const { isHexAddress, toEip55 } = await import('../../auth/siwe/eip55.ts');
      if (address !== undefined && !isHexAddress(address))
        throw new AppError('VALIDATION_FAILED', '--address must be 0x followed by 40 hexadecimal digits');
      const message = signing.buildSignInMessage(address === undefined ? '' : toEip55(address), messageOptions);
      return { json: { message }, text: message, exact: true };
    }
    if (mode === 'signature') {
      const file = optionalString(values, 'message-file');
      const message =
        file === undefined || file === '-'
          ? await readPipedInput(process.stdin, 'the signed message', MESSAGE_MAX_BYTES)
          : await readOptionFile(file, 'message-file', MESSAGE_MAX_BYTES);
      const { headersFromSignature } = await import('../../auth/signing/external-signature.ts');
      const address = optionalString(values, 'address');
      return headerLines(
        headersFromSignature({ message, signature: optionalString(values, 'signature')!, ...(address === undefined ? {} : { address }) }),
      );
    }
    let privateKey = optionalString(values, 'private-key');
    if (mode === 'keystore') {
      const { KEYSTORE_MAX_BYTES, decryptKeystore, parseKeystore } = await import('../../auth/signing/keystore.ts');
      const keystore = parseKeystore(
        (await readOptionFile(optionalString(values, 'keystore')!, 'keystore', KEYSTORE_MAX_BYTES)).toString('utf8'),
      );
      const password = await readPassword(
        { file: optionalString(values, 'password-file'), env: optionalString(values, 'password-env') },
        { input: process.stdin, output: process.stderr, env: process.env },
      );
      privateKey = await decryptKeystore(keystore, password);
    }
    return headerLines(await signing.createSignInHeaders({ privateKey: privateKey!, ...messageOptions }));
  },
};
