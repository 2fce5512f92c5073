import type { Eip1193Provider } from '../../client/index.ts';

/** A wallet the page can sign in with: one announced by EIP-6963, or the legacy `window.ethereum`. */
export interface WalletChoice {
  /** EIP-6963's uuid, or "injected" for window.ethereum. */
  id: string;
  name: string;
  /** A data: URI (EIP-6963 requires one), shown beside the name. */
  icon: string | undefined;
  rdns: string | undefined;
  provider: Eip1193Provider;
}

interface AnnounceDetail {
  info?: { uuid?: unknown; name?: unknown; icon?: unknown; rdns?: unknown };
  provider?: Eip1193Provider;
}

/**
 * Listens for wallets announcing themselves (EIP-6963) and asks them to; `onChange` gets the list
 * each time it grows. Announcements can arrive late (an extension that loads after the page), so
 * the listener stays until `stop()`. A wallet announcing twice (per request) is listed once.
 */
export function watchWallets(onChange: (wallets: WalletChoice[]) => void): () => void {
  const byId = new Map<string, WalletChoice>();
  const announced = (event: Event) => {
    const detail = (event as CustomEvent<AnnounceDetail>).detail;
    const info = detail?.info;
    if (!info || typeof info.uuid !== 'string' || typeof info.name !== 'string' || typeof detail.provider?.request !== 'function') return;
    if (byId.has(info.uuid)) return;
    // Only data: images: an announced URL would be fetched from elsewhere (and the CSP refuses it).
    const icon = typeof info.icon === 'string' && info.icon.startsWith('data:image/') ? info.icon : undefined;
    byId.set(info.uuid, {
      id: info.uuid,
      name: info.name,
      icon,
      rdns: typeof info.rdns === 'string' ? info.rdns : undefined,
      provider: detail.provider,
    });
    onChange([...byId.values()]);
  };
  window.addEventListener('eip6963:announceProvider', announced);
  window.dispatchEvent(new Event('eip6963:requestProvider'));
  return () => window.removeEventListener('eip6963:announceProvider', announced);
}

/** The pre-EIP-6963 way: one provider at window.ethereum (a wallet that does not announce itself). */
export function injectedWallet(): WalletChoice | undefined {
  const provider = (window as { ethereum?: Eip1193Provider }).ethereum;
  if (typeof provider?.request !== 'function') return undefined;
  return { id: 'injected', name: 'Browser wallet', icon: undefined, rdns: undefined, provider };
}
