import type { Command } from '../command.ts';
import { optionalString, stringOption } from '../command.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';

const adminOption = {
  admin: { type: 'string', required: true, placeholder: 'ID', description: 'Admin id (adm_…): yours, or (owners) another admin' },
} as const;

/**
 * An admin's wallets over HTTP. A wallet is added only with its own signature of the service's
 * challenge, so `add` needs the new wallet's keystore besides the one that signs in (locally,
 * the operator moves an admin with `admin set-wallet`).
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
    words: ['admin', 'wallet', 'add'],
    summary: "Add a wallet to an admin, proven by the new wallet's signature of the service's challenge",
    options: {
      ...adminOption,
      'new-keystore': {
        type: 'string',
        required: true,
        placeholder: 'FILE',
        description: "The new wallet's keystore, which signs the challenge",
      },
      'new-password-file': { type: 'string', placeholder: 'FILE', description: "Its password is this file's first line" },
      'new-password-env': {
        type: 'string',
        placeholder: 'NAME',
        description: "Its password is this environment variable's value (default: asked)",
      },
    },
    async remote({ values, client }) {
      const adminId = stringOption(values, 'admin');
      const api = await client();
      // viem and the keystore code load only for the command that signs (as for sign).
      const { keystoreSigner } = await import('../remote/keystore-signer.ts');
      const newWallet = await keystoreSigner(
        stringOption(values, 'new-keystore'),
        { file: optionalString(values, 'new-password-file'), env: optionalString(values, 'new-password-env') },
        'new-keystore',
      );
      const wallet = await api.addWallet(adminId, newWallet);
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
