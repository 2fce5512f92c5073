import type { Eip1193Provider } from '../../client/index.ts';
import type { WalletChoice } from './discovery.ts';

/** EIP-1193's "unsupported method" (4200) and JSON-RPC's "method not found" (-32601). */
const UNSUPPORTED = new Set([4200, -32601]);

/**
 * An account of `wallet` other than the one signed in, to add as the admin's next wallet. From the
 * wallet signed in with (`sameWallet`), the admin is first asked to share one more of its accounts
 * with the page (wallet_requestPermissions: the wallet's own account picker); a wallet without that
 * picker offers the accounts it already shares. The wallet's selected account comes first.
 */
export async function newAccountOf(wallet: WalletChoice, signedIn: string, sameWallet: boolean): Promise<string> {
  const provider = wallet.provider;
  if (sameWallet) {
    try {
      await provider.request({ method: 'wallet_requestPermissions', params: [{ eth_accounts: {} }] });
    } catch (error) {
      if (!UNSUPPORTED.has((error as { code?: unknown } | null)?.code as number)) throw error;
    }
  }
  const other = (await sharedAccounts(provider)).find((account) => account.toLowerCase() !== signedIn.toLowerCase());
  if (other === undefined) {
    throw new Error(
      `${wallet.name} shares only ${signedIn}, the account you are signed in with: ` +
        (sameWallet ? 'connect another of its accounts to this page when it asks, or pick another wallet.' : 'pick another account in it.'),
    );
  }
  return other;
}

/** The accounts the wallet shares with the page, asking to connect when it shares none yet. */
async function sharedAccounts(provider: Eip1193Provider): Promise<string[]> {
  const known = await provider.request({ method: 'eth_accounts' });
  const accounts = Array.isArray(known) && known.length > 0 ? known : await provider.request({ method: 'eth_requestAccounts' });
  return Array.isArray(accounts) ? accounts.filter((account): account is string => typeof account === 'string') : [];
}
