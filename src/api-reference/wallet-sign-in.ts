import { SignInSession } from '../client/sign-in.ts';
import { fromEip1193 } from '../client/signers.ts';
import { injectedWallet, type WalletChoice, watchWallets } from '../console/wallet/discovery.ts';
import { authorizeSignedHeaders, type Component, type SwaggerSystem } from './swagger-system.ts';

/*
 * The Authorize dialog's sign-in with a browser wallet, as the console signs in: the wallets that
 * announce themselves (EIP-6963; `window.ethereum` when none does), one button each; the one
 * pressed signs a Sign-In with Ethereum message for this site, and its three headers are
 * authorized at once. The message lives in the page only, like the pasted one.
 */

const STATEMENT = 'Sign in to the wallet-admin API reference.';
/** An hour: enough to try the API, short for a signature that sits in a page. */
const LIFETIME_SECONDS = 3600;

/** A signature for this site's domain and origin, with a nonce the service issued. */
async function signIn(wallet: WalletChoice) {
  const session = new SignInSession({
    signer: fromEip1193(wallet.provider),
    baseUrl: new URL(window.location.origin),
    lifetimeSeconds: LIFETIME_SECONDS,
    statement: STATEMENT,
    nonce: async () => {
      const answer = await fetch('/api/auth/nonce');
      if (!answer.ok) throw new Error(`The service gave no nonce (${answer.status})`);
      return ((await answer.json()) as { nonce: string }).nonce;
    },
    now: () => Date.now(),
  });
  return session.headers();
}

/** What a refused or failed signing says to the reader. */
function problemOf(error: unknown): string {
  // EIP-1193: 4001 is the person declining in the wallet.
  if ((error as { code?: unknown } | null)?.code === 4001) return 'The wallet declined to sign. Nothing was signed.';
  return `Not signed in: ${error instanceof Error ? error.message : String(error)}`;
}

export function WalletSignInBox(system: SwaggerSystem): Component<Record<string, never>> {
  const { React } = system;
  const h = React.createElement;
  return function WalletAdminWalletSignIn() {
    const [wallets, setWallets] = React.useState<WalletChoice[]>([]);
    const [busy, setBusy] = React.useState<string | undefined>(undefined);
    const [problem, setProblem] = React.useState<string | undefined>(undefined);
    React.useEffect(() => watchWallets(setWallets), []);
    // window.ethereum only when no wallet announced itself: an announcing wallet sets it too.
    const legacy = wallets.length === 0 ? injectedWallet() : undefined;
    const choices = legacy ? [legacy] : wallets;
    const use = async (wallet: WalletChoice) => {
      setBusy(wallet.id);
      setProblem(undefined);
      try {
        authorizeSignedHeaders(system, await signIn(wallet));
      } catch (error) {
        setProblem(problemOf(error));
      } finally {
        setBusy(undefined);
      }
    };
    return h(
      'div',
      { className: 'wallet-admin-wallets', style: { padding: '0 0 20px', borderBottom: '1px solid #ebebeb' } },
      h('h4', null, 'Sign in with a browser wallet'),
      h(
        'p',
        null,
        choices.length > 0
          ? 'The wallet shows the message it signs (this site, valid for an hour); X-WAL, X-SIG and X-MES below are then authorized together. Nothing is sent on chain.'
          : 'No browser wallet announced itself on this page. Install or unlock one (MetaMask, Rabby, Frame…), or paste what wallet-admin sign prints below.',
      ),
      ...choices.map((wallet) =>
        h(
          'button',
          {
            type: 'button',
            key: wallet.id,
            className: 'btn modal-btn auth authorize',
            style: { margin: '0 8px 8px 0' },
            disabled: busy !== undefined,
            onClick: () => void use(wallet),
          },
          busy === wallet.id ? `Confirm in ${wallet.name}…` : `Sign in with ${wallet.name}`,
        ),
      ),
      problem !== undefined && h('p', { role: 'alert', style: { color: '#b91c1c' } }, problem),
    );
  };
}
