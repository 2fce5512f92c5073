import { hexOfUtf8 } from './encoding.ts';
import type { TypedData } from './types.ts';

/**
 * What the client needs of a wallet. The adapters below take structural types only, so the client
 * loads neither viem nor ethers: a page passes the objects it already has.
 */
export interface WalletSigner {
  /** The account that signs, in any letter case. */
  getAddress(): Promise<string>;
  /** The chain id written into the message (EIP-4361 requires one; the service does not check it). */
  getChainId(): Promise<number>;
  /** EIP-191 `personal_sign` of the UTF-8 bytes of `message`: `0x` + 130 hex digits. */
  signMessage(message: string): Promise<string>;
  /**
   * EIP-712 `eth_signTypedData_v4` of typed data exactly as given: a proposal's intent
   * (approveProposal), a new wallet's proof (addWallet); absent: this signer cannot.
   */
  signTypedData?(typedData: TypedData): Promise<string>;
}

/** The typed data without its EIP712Domain entry, which viem and ethers derive from the domain themselves. */
function ownTypes(typedData: TypedData): Record<string, { name: string; type: string }[]> {
  const { EIP712Domain: _domain, ...types } = typedData.types as Record<string, { name: string; type: string }[]>;
  return types;
}

/** An EIP-1193 provider: `window.ethereum`, or one announced by EIP-6963. */
export interface Eip1193Provider {
  request(args: { method: string; params?: readonly unknown[] }): Promise<unknown>;
}

/**
 * `options.account`: the account that signs, among those the wallet shares with the page; without
 * it, the wallet's selected one (the first it lists). A wallet holding several accounts signs with
 * the one named whichever is selected, so a page can keep signing as the account it signed in with
 * while another of the wallet's accounts proves itself (a second wallet for the same admin).
 */
export function fromEip1193(provider: Eip1193Provider, options: { account?: string } = {}): WalletSigner {
  const address = async (): Promise<string> => {
    if (options.account !== undefined) return options.account;
    // eth_accounts answers without a prompt when the page is already connected; otherwise ask.
    const known = (await provider.request({ method: 'eth_accounts' })) as string[] | undefined;
    const accounts = known?.length ? known : ((await provider.request({ method: 'eth_requestAccounts' })) as string[] | undefined);
    const first = accounts?.[0];
    if (typeof first !== 'string') throw new Error('The wallet shared no account');
    return first;
  };
  return {
    getAddress: address,
    async getChainId() {
      const chainId = await provider.request({ method: 'eth_chainId' });
      // EIP-1193 answers a hex quantity ("0x1"); a number is tolerated from older providers.
      const parsed = typeof chainId === 'number' ? chainId : Number.parseInt(String(chainId), 16);
      if (!Number.isSafeInteger(parsed) || parsed < 1) throw new Error(`The wallet answered an invalid chain id: ${String(chainId)}`);
      return parsed;
    },
    async signMessage(message) {
      // personal_sign takes the message as hex of its bytes: wallets show it decoded, and no wallet
      // guesses whether a string that looks like hex is text or bytes.
      return String(await provider.request({ method: 'personal_sign', params: [hexOfUtf8(message), await address()] }));
    },
    async signTypedData(typedData) {
      return String(await provider.request({ method: 'eth_signTypedData_v4', params: [await address(), JSON.stringify(typedData)] }));
    },
  };
}

/** A viem `LocalAccount` (privateKeyToAccount, mnemonicToAccount…), which knows no chain: pass one. */
export interface ViemAccountLike {
  address: string;
  signMessage(args: { message: string }): Promise<string>;
  /** viem's is generic over the typed data; any account's fits (the call below passes it exactly what it takes). */
  signTypedData?(args: never): Promise<string>;
}

export function fromViemAccount(account: ViemAccountLike, chainId = 1): WalletSigner {
  return {
    getAddress: async () => account.address,
    getChainId: async () => chainId,
    signMessage: (message) => account.signMessage({ message }),
    ...(account.signTypedData === undefined
      ? {}
      : {
          signTypedData: (typedData: TypedData) =>
            account.signTypedData!({
              domain: typedData.domain,
              types: ownTypes(typedData),
              primaryType: typedData.primaryType,
              message: typedData.message,
            } as never),
        }),
  };
}

/** An ethers v6 `Signer` (Wallet, JsonRpcSigner, BrowserProvider#getSigner()). */
export interface EthersSignerLike {
  getAddress(): Promise<string>;
  signMessage(message: string): Promise<string>;
  signTypedData?(domain: never, types: never, value: never): Promise<string>;
  readonly provider?: { getNetwork(): Promise<{ chainId: bigint }> } | null;
}

/** The chain is the signer's provider's; `chainId` is used when the signer has no provider (a bare Wallet). */
export function fromEthersSigner(signer: EthersSignerLike, chainId = 1): WalletSigner {
  return {
    getAddress: () => signer.getAddress(),
    getChainId: async () => (signer.provider ? Number((await signer.provider.getNetwork()).chainId) : chainId),
    signMessage: (message) => signer.signMessage(message),
    ...(signer.signTypedData === undefined
      ? {}
      : {
          signTypedData: (typedData: TypedData) =>
            signer.signTypedData!(typedData.domain as never, ownTypes(typedData) as never, typedData.message as never),
        }),
  };
}
