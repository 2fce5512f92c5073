import { SiweParseError } from '../../auth/siwe/siwe-error.ts';
import type { Command, CommandResult, OptionValues } from '../command.ts';
import { integerOption, optionalString, UsageError } from '../command.ts';
import { readOptionFile, readPassword, readPipedInput } from '../secret-input.ts';
import { exactText, terminalLines, terminalText } from '../terminal-text.ts';

/** A SIWE message is a few hundred bytes; the service takes at most MAX_HEADER_BYTES of headers. */
const MESSAGE_MAX_BYTES = 64 * 1024;

/** The ways to sign; exactly one per run. */
const MODES = ['keystore', 'print-message', 'signature', 'private-key'] as const;
/** What shapes a new message: meaningless for a message already signed (--signature). */
const MESSAGE_OPTIONS = ['domain', 'uri', 'chain-id', 'ttl', 'nonce', 'plain'] as const;
/** What only a SIWE message holds: the plain one is "Sign in to DOMAIN at TIME". */
const SIWE_ONLY_OPTIONS = ['uri', 'chain-id', 'ttl', 'nonce'] as const;

/** The option behind each field of the SIWE message the CLI builds, for a field it refuses. */
const OPTION_OF_FIELD: Readonly<Record<string, string>> = {
  scheme: 'domain',
  domain: 'domain',
  uri: 'uri',
  chainId: 'chain-id',
  nonce: 'nonce',
  expirationTime: 'ttl',
};

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_PRIVATE_KEY = /^(0x)?[0-9a-fA-F]{64}$/;
const HEX_SIGNATURE = /^(0x)?[0-9a-fA-F]{130}$/;

/** A hex option of a fixed length: anything else is a malformed option (exit 2), refused before any work. */
function hexOption(values: OptionValues, name: string, shape: RegExp, wanted: string): string | undefined {
  const value = optionalString(values, name);
  if (value !== undefined && !shape.test(value)) throw new UsageError(`--${name} must be ${wanted}`);
  return value;
}

/** A SIWE field refused while the message is built names the option it came from. */
async function withOptionNames<T>(build: () => Promise<T> | T): Promise<T> {
  try {
    return await build();
  } catch (error) {
    if (!(error instanceof SiweParseError) || error.field === undefined || OPTION_OF_FIELD[error.field] === undefined) throw error;
    throw new UsageError(`--${OPTION_OF_FIELD[error.field]}: ${error.message.replace(/^Invalid "[^"]*": /, '')}`);
  }
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
  if (values.plain === true) {
    for (const option of SIWE_ONLY_OPTIONS) {
      if (values[option] !== undefined) throw new UsageError(`--${option} shapes a Sign-In with Ethereum message, not a --plain one`);
    }
  }
  if (mode === 'print-message' && values.address === undefined && values.plain !== true) {
    throw new UsageError('--print-message needs --address 0x… (the wallet that will sign)');
  }
  return mode;
}

function headerLines(headers: object): CommandResult {
  return {
    json: { ...headers },
    text: terminalLines(Object.entries(headers).map(([k, v]) => terminalText`${k}: ${v}`)),
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
    plain: { type: 'boolean', description: 'Sign a single-line timestamped message instead of SIWE (shaped by --domain alone)' },
  },
  async run({ values, config }) {
    const mode = checkCombination(values);
    const address = hexOption(values, 'address', HEX_ADDRESS, '0x followed by 40 hexadecimal digits');
    const signature = hexOption(values, 'signature', HEX_SIGNATURE, '130 hexadecimal digits (65 bytes: r, s, v), with or without 0x');
    let privateKey = hexOption(values, 'private-key', HEX_PRIVATE_KEY, '64 hexadecimal digits, with or without 0x');
    const messageOptions = {
      domain: optionalString(values, 'domain') ?? config.auth.domains[0]!,
      uri: optionalString(values, 'uri') ?? config.publicBaseUrl,
      chainId: integerOption(values, 'chain-id', { min: 1, max: Number.MAX_SAFE_INTEGER, fallback: 1 }),
      // Ten years: far beyond any AUTH_MAX_AGE (which ends a message sooner anyway), short of dates JavaScript cannot write.
      ttlSeconds: integerOption(values, 'ttl', { min: 1, max: 10 * 365 * 86400, fallback: 3600 }),
      nonce: optionalString(values, 'nonce'),
      plain: values.plain === true,
    };
    // viem's key handling takes about 0.15 s to load: only this command pays for it.
    const signing = await import('../../auth/signing/sign-in-headers.ts');

    if (mode === 'print-message') {
      const { toEip55 } = await import('../../auth/siwe/eip55.ts');
      const message = await withOptionNames(() =>
        signing.buildSignInMessage(address === undefined ? '' : toEip55(address), messageOptions),
      );
      return { json: { message }, text: exactText(message), exact: true };
    }
    if (mode === 'signature') {
      const file = optionalString(values, 'message-file');
      const message =
        file === undefined || file === '-'
          ? await readPipedInput(process.stdin, 'the signed message', MESSAGE_MAX_BYTES)
          : await readOptionFile(file, 'message-file', MESSAGE_MAX_BYTES);
      const { headersFromSignature } = await import('../../auth/signing/external-signature.ts');
      return headerLines(headersFromSignature({ message, signature: signature!, ...(address === undefined ? {} : { address }) }));
    }
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
    return headerLines(await withOptionNames(() => signing.createSignInHeaders({ privateKey: privateKey!, ...messageOptions })));
  },
};
