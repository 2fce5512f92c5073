import type { WalletProofTypedData } from '../../client/index.ts';
import type { Command } from '../command.ts';
import { type OptionValues, optionalString, stringOption, UsageError } from '../command.ts';
import { atMostOneOf } from '../option-checks.ts';
import { readOptionFile, readPipedInput } from '../secret-input.ts';
import { exactText, terminalLines, terminalText } from '../terminal-text.ts';

/** A challenge's typed data is about a kilobyte. */
const TYPED_DATA_MAX_BYTES = 64 * 1024;

/** The new wallet's keystore (viem and the keystore code load only for a command that signs, as for sign). */
async function newKeystoreSigner(values: OptionValues) {
  const { keystoreSigner } = await import('../remote/keystore-signer.ts');
  return keystoreSigner(
    stringOption(values, 'new-keystore'),
    { file: optionalString(values, 'new-password-file'), env: optionalString(values, 'new-password-env') },
    'new-keystore',
  );
}

/** The challenge's typed data signed elsewhere, from --typed-data-file or stdin, as `admin wallet challenge` printed it. */
async function signedChallenge(values: OptionValues): Promise<WalletProofTypedData> {
  const file = optionalString(values, 'typed-data-file');
  const bytes =
    file === undefined || file === '-'
      ? await readPipedInput(process.stdin, 'the signed typed data', TYPED_DATA_MAX_BYTES)
      : await readOptionFile(file, 'typed-data-file', TYPED_DATA_MAX_BYTES);
  try {
    return JSON.parse(bytes.toString('utf8')) as WalletProofTypedData;
  } catch {
    throw new UsageError('The signed typed data is not JSON: give what admin wallet challenge printed, unchanged');
  }
}

const adminOption = {
  admin: { type: 'string', required: true, placeholder: 'ID', description: 'Admin id (adm_…): yours, or (owners) another admin' },
} as const;

/**
 * An admin's wallets over HTTP. A wallet is added only with its own signature of the service's
 * challenge, EIP-712 typed data (never a sign-in): `add` signs one with the new wallet's keystore,
 * or takes the signature of one that `challenge` printed and another wallet signed (locally, the
 * operator moves an admin with `admin set-wallet`).
 */
export const walletCommands: Command[] = [
  {
    words: ['admin', 'wallet', 'list'],
    summary: "An admin's wallets",
    options: adminOption,
    async remote({ values, client }) {
      const wallets = await (await client()).listWallets(stringOption(values, 'admin'));
      const lines = wallets.items.map((w) => terminalText`${w.address}  added ${w.addedAt}`);
      return { json: { ...wallets }, text: lines.length > 0 ? terminalLines(lines) : terminalText`No wallets` };
    },
  },
  {
    words: ['admin', 'wallet', 'challenge'],
    summary: "Print the service's challenge, typed data for a new wallet to sign elsewhere (then: admin wallet add --signature)",
    options: {
      ...adminOption,
      wallet: { type: 'string', required: true, placeholder: '0x…', description: 'The new wallet, which will sign it' },
    },
    async remote({ values, client }) {
      const challenge = await (await client()).walletChallenge(stringOption(values, 'admin'), stringOption(values, 'wallet'));
      // The typed data as eth_signTypedData_v4 takes it: printed exactly, with no newline when piped into a file.
      return { json: { ...challenge }, text: exactText(JSON.stringify(challenge.typedData)), exact: true };
    },
  },
  {
    words: ['admin', 'wallet', 'add'],
    summary: "Add a wallet to an admin, proven by the new wallet's signature of the service's challenge",
    options: {
      ...adminOption,
      'new-keystore': { type: 'string', placeholder: 'FILE', description: "The new wallet's keystore: it signs a fresh challenge" },
      'new-password-file': { type: 'string', placeholder: 'FILE', description: "Its password is this file's first line" },
      'new-password-env': {
        type: 'string',
        placeholder: 'NAME',
        description: "Its password is this environment variable's value (default: asked)",
      },
      signature: {
        type: 'string',
        placeholder: '0x…',
        description: "Instead: the new wallet's eth_signTypedData_v4 signature of the typed data admin wallet challenge printed",
      },
      'typed-data-file': {
        type: 'string',
        placeholder: 'FILE',
        description: 'With --signature: that typed data, as printed (default: stdin)',
      },
    },
    async remote({ values, client }) {
      atMostOneOf(values, ['new-keystore', 'signature'], true);
      if (values['typed-data-file'] !== undefined && values.signature === undefined)
        throw new UsageError('--typed-data-file goes with --signature');
      const adminId = stringOption(values, 'admin');
      const api = await client();
      const wallet =
        values.signature === undefined
          ? await api.addWallet(adminId, await newKeystoreSigner(values))
          : await api.addWalletSigned(adminId, { typedData: await signedChallenge(values), signature: stringOption(values, 'signature') });
      return { json: { adminId, ...wallet }, text: terminalText`Added ${wallet.address} to ${adminId}` };
    },
  },
  {
    words: ['admin', 'wallet', 'remove'],
    summary: 'Remove a wallet from an admin: its sessions end (an admin keeps at least one wallet)',
    options: {
      ...adminOption,
      wallet: { type: 'string', required: true, placeholder: '0x…', description: 'The wallet address to remove' },
    },
    async remote({ values, client }) {
      const adminId = stringOption(values, 'admin');
      const address = stringOption(values, 'wallet');
      await (await client()).removeWallet(adminId, address);
      return { json: { adminId, address, removed: true }, text: terminalText`Removed ${address} from ${adminId}` };
    },
  },
];
