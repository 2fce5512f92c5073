import { privateKeyToAccount } from 'viem/accounts';
import { decryptKeystore, KEYSTORE_MAX_BYTES, parseKeystore } from '../../auth/signing/keystore.ts';
import type { WalletSigner } from '../../client/index.ts';
import { type PasswordSources, readOptionFile, readPassword } from '../secret-input.ts';

type Account = ReturnType<typeof privateKeyToAccount>;

/**
 * A wallet for the client from a keystore file. The file is read and checked at once; the password
 * is asked (or read) only when a message (or a proposal's typed data) is to be signed, so a command that presents a message
 * signed before asks for none. The keystore's own address, when it names one, answers without it.
 */
export async function keystoreSigner(file: string, passwords: PasswordSources, option = 'keystore'): Promise<WalletSigner> {
  const keystore = parseKeystore((await readOptionFile(file, option, KEYSTORE_MAX_BYTES)).toString('utf8'));
  let account: Promise<Account> | undefined;
  const unlocked = (): Promise<Account> =>
    (account ??= (async () => {
      const password = await readPassword(passwords, { input: process.stdin, output: process.stderr, env: process.env });
      return privateKeyToAccount(await decryptKeystore(keystore, password));
    })());
  return {
    getAddress: async () => (keystore.address === undefined ? (await unlocked()).address : `0x${keystore.address.replace(/^0x/i, '')}`),
    // The chain a sign-in message names; the service checks it only when AUTH_CHAIN_IDS is set.
    getChainId: async () => 1,
    signMessage: async (message) => (await unlocked()).signMessage({ message }),
    // A proposal's intent (proposal approve): exactly the typed data given; viem derives EIP712Domain from the domain itself.
    signTypedData: async ({ domain, types, primaryType, message }) => {
      const { EIP712Domain: _domain, ...own } = types;
      return (await unlocked()).signTypedData({ domain, types: own, primaryType, message } as never);
    },
  };
}
