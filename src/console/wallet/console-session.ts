import {
  type AuthTestResponse,
  createClient,
  errorOf,
  fromEip1193,
  ProblemError,
  type WalletAdminClient,
  type WalletSigner,
} from '../../client/index.ts';
import { progressFetch } from '../transport/progress-fetch.ts';
import type { WalletChoice } from './discovery.ts';

/** How long a signature lasts, as the admin picks it on the sign-in screen. */
export const LIFETIMES = [
  { seconds: 3600, label: '1 hour' },
  { seconds: 8 * 3600, label: 'A working day (8 hours)' },
  { seconds: 24 * 3600, label: '24 hours' },
] as const;
export const DEFAULT_LIFETIME_SECONDS = 8 * 3600;

/** EIP-1193 events are optional: a provider without them is simply not followed. */
interface EventedProvider {
  on?(event: string, listener: (value: unknown) => void): unknown;
  removeListener?(event: string, listener: (value: unknown) => void): unknown;
}

const STATEMENT = 'Sign in to the wallet-admin console.';

export type SessionState =
  | {
      status: 'signed-out';
      error?: unknown;
      /** What the sign-out did, when it did more than this page's. */
      notice?: string;
      /** Why the service ended the session (the admin was suspended or removed), and its refusal. */
      ended?: SessionEnd;
    }
  | { status: 'signing-in'; wallet: WalletChoice }
  | Invitee
  | SignedIn;

/** Signed a message with a wallet that is no admin yet, to accept an invitation with it. */
export interface Invitee {
  status: 'invitee';
  client: WalletAdminClient;
  wallet: WalletChoice;
  walletAddress: string;
}

export interface SignedIn {
  status: 'signed-in';
  client: WalletAdminClient;
  wallet: WalletChoice;
  me: AuthTestResponse;
  expiresAt: Date | undefined;
  /** Set while the signature ran out and the wallet must sign again before work goes on. */
  renewal?: Renewal;
}

/** The service refused a signed-in admin for good: said in a sentence, with the service's own answer. */
export interface SessionEnd {
  reason: string;
  refusal: ProblemError;
}

export interface Renewal {
  /** The admin agreed: the wallet is asked to sign the new message. */
  confirm(): void;
  /** The admin declined: signed out, the waiting requests fail. */
  decline(): void;
  /** Set when the wallet refused or failed to sign the last attempt. */
  error?: unknown;
}

/**
 * The console's one signed-in session. The client signs in once and reuses the message; when it
 * needs a new signature later (the message expired or was signed out elsewhere) the wallet is not
 * prompted out of the blue: the page asks the admin first, and every request waiting on the new
 * signature continues where it was once the admin signs, so the view and any pending work stay.
 */
export class ConsoleSession {
  #state: SessionState = { status: 'signed-out' };
  readonly #listeners = new Set<(state: SessionState) => void>();
  /** Stops following the wallet's account changes of the current session. */
  #unwatchAccounts = () => {};
  /** The principal being read again, shared by the requests that ask for it meanwhile. */
  #refreshing: Promise<void> | undefined;

  get state(): SessionState {
    return this.#state;
  }

  subscribe(listener: (state: SessionState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async signIn(wallet: WalletChoice, lifetimeSeconds: number): Promise<void> {
    this.#set({ status: 'signing-in', wallet });
    const client = this.#clientFor(wallet, lifetimeSeconds);
    try {
      await client.signIn();
      await this.#enter(client, wallet);
    } catch (error) {
      this.#set({ status: 'signed-out', error });
    }
  }

  /**
   * An invitee signs the message first (the wallet is no admin yet, so nothing else is asked of the
   * service); `acceptInvitation` then makes it one with that same message: one signature in all.
   */
  async signInAsInvitee(wallet: WalletChoice, lifetimeSeconds: number): Promise<void> {
    this.#set({ status: 'signing-in', wallet });
    const client = this.#clientFor(wallet, lifetimeSeconds);
    try {
      const headers = await client.signIn();
      this.#set({ status: 'invitee', client, wallet, walletAddress: headers['X-WAL'] });
    } catch (error) {
      this.#set({ status: 'signed-out', error });
    }
  }

  /** Accepts the invitation as the signed-in invitee, who is then signed in as the new admin. A refusal is thrown to the view. */
  async acceptInvitation(token: string, displayName: string | undefined): Promise<void> {
    const state = this.#state;
    if (state.status !== 'invitee') throw new Error('Sign in with your wallet first');
    await state.client.acceptInvitation(token, displayName ? { displayName } : {});
    await this.#enter(state.client, state.wallet);
  }

  #clientFor(wallet: WalletChoice, lifetimeSeconds: number): WalletAdminClient {
    let signedOnce = false;
    // The account that signed in signs every later message too (a renewal), named to the wallet,
    // whichever of the wallet's accounts is selected by then: adding a second account of the same
    // wallet selects that one, and the session must stay the first's.
    let account: string | undefined;
    const walletSigner = (): WalletSigner => fromEip1193(wallet.provider, { account });
    const signer: WalletSigner = {
      getAddress: async () => (account ??= await walletSigner().getAddress()),
      getChainId: () => walletSigner().getChainId(),
      signMessage: async (message) => {
        account ??= await walletSigner().getAddress();
        if (!signedOnce) {
          signedOnce = true;
          return walletSigner().signMessage(message);
        }
        return this.#renew(() => walletSigner().signMessage(message));
      },
    };
    const client: WalletAdminClient = createClient({
      baseUrl: window.location.origin,
      signer,
      lifetimeSeconds,
      statement: STATEMENT,
      // A request a policy holds (202, a proposal) reaches the view as the client's HeldForApproval: never as done.
      // Every answer is watched, whichever view asked: a suspension or a narrowing is seen at the next request.
      fetch: (input, init) =>
        progressFetch(input, init).then((response) => {
          if (response.status === 401 || response.status === 403) void this.#refused(client, response.clone());
          return response;
        }),
    });
    return client;
  }

  /**
   * A refusal of one of the client's requests, whatever view made it. ADMIN_SUSPENDED, and a 401 that
   * a new signature cannot cure (the wallet is no admin's any more: removed), end the session, saying
   * why; PERMISSION_DENIED means the admin may hold less than the page thinks: who they are is read
   * again, and every view shows what they may do now.
   */
  async #refused(client: WalletAdminClient, response: Response): Promise<void> {
    const state = this.#state;
    if (state.status !== 'signed-in' || state.client !== client) return;
    const refusal = await problemOf(response);
    if (refusal === undefined) return;
    if (endsSession(refusal)) this.#end(refusal);
    else if (refusal.code === 'PERMISSION_DENIED') await this.refreshPrincipal();
  }

  /** The session is over: the sign-in screen comes back, saying why. */
  #end(refusal: ProblemError): void {
    if (this.#state.status !== 'signed-in') return;
    this.#unwatchAccounts();
    this.#set({ status: 'signed-out', ended: { reason: endReason(refusal), refusal } });
  }

  /**
   * Reads who the signed-in admin is again (GET /api/auth/test): an admin narrowed, widened or
   * unlinked meanwhile sees what they may do now. Calls made while one runs share it.
   */
  refreshPrincipal(): Promise<void> {
    this.#refreshing ??= this.#readPrincipal().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #readPrincipal(): Promise<void> {
    const state = this.#state;
    if (state.status !== 'signed-in') return;
    // A refusal here is watched like any other (a suspension ends the session); nothing else to do.
    const me = await state.client.authTest().catch(() => undefined);
    const now = this.#state;
    if (me === undefined || now.status !== 'signed-in' || now.client !== state.client) return;
    if (JSON.stringify(me.principal) !== JSON.stringify(now.me.principal)) this.#set({ ...now, me });
  }

  /** Signed in as the admin the client's message belongs to. */
  async #enter(client: WalletAdminClient, wallet: WalletChoice): Promise<void> {
    const me = await client.authTest();
    this.#set({ status: 'signed-in', client, wallet, me, expiresAt: (await client.signedIn())?.expiresAt });
    this.#watchAccounts(wallet, client, me.walletAddress);
  }

  /** Revokes the message on the service (the old headers then get 401) and forgets the client. */
  async signOut(reason?: Error): Promise<void> {
    const state = this.#state;
    this.#unwatchAccounts();
    let failure: unknown;
    if (state.status === 'signed-in' || state.status === 'invitee') {
      // A pending renewal first: the logout below waits for the signing it would otherwise hold up.
      if (state.status === 'signed-in') state.renewal?.decline();
      // Signed out once the service has revoked the message, so that "signed out" means its headers are dead.
      failure = await state.client.logout().then(
        () => undefined,
        (error: unknown) => error,
      );
    }
    const unrevoked =
      failure === undefined
        ? undefined
        : new Error(
            `Signed out in this page, but the service could not revoke the message (${failure instanceof Error ? failure.message : String(failure)}): it stays valid until it expires.`,
          );
    this.#set({ status: 'signed-out', error: reason ?? unrevoked });
  }

  /**
   * Ends every message this admin has signed, in every browser and tool, on every instance; then
   * this page is signed out too. A failure leaves the session as it was and is thrown to the view.
   */
  async signOutEverywhere(): Promise<void> {
    const state = this.#state;
    if (state.status !== 'signed-in') return;
    state.renewal?.decline();
    await state.client.logout({ all: true });
    this.#unwatchAccounts();
    this.#set({
      status: 'signed-out',
      notice: `Signed out everywhere: every message ${state.me.principal.displayName} had signed stopped working, in every browser and tool.`,
    });
  }

  /**
   * Called by a view whose request failed: a 401 that re-signing could not cure means the session
   * is over (the admin declined, or the wallet was refused), and so does ADMIN_SUSPENDED (an admin
   * suspended them): the sign-in screen comes back, saying why.
   */
  noticeError(error: unknown): void {
    if (error instanceof ProblemError && endsSession(error)) this.#end(error);
  }

  /**
   * The wallet stopped sharing the signed-in account with the page (the admin switched to another
   * account, not connected here, or disconnected it): the console must not go on acting as that
   * account behind the wallet's back, so it signs that message out and asks to sign in again. While
   * the wallet still shares it, the session stays that account's whichever is selected: connecting
   * a second account (to add it as a wallet) does not sign the first out.
   */
  #watchAccounts(wallet: WalletChoice, client: WalletAdminClient, address: string): void {
    const provider = wallet.provider as EventedProvider;
    const changed = (accounts: unknown) => {
      const shared = Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : [];
      const state = this.#state;
      if (state.status !== 'signed-in' || state.client !== client) return;
      if (shared.some((a) => a.toLowerCase() === address.toLowerCase())) return;
      const to = shared[0] ? ` (${shared[0]})` : '';
      void this.signOut(new Error(`The wallet switched to another account${to}. Sign in again to act as that account.`));
    };
    provider.on?.('accountsChanged', changed);
    this.#unwatchAccounts = () => provider.removeListener?.('accountsChanged', changed);
  }

  #renew(sign: () => Promise<string>): Promise<string> {
    const state = this.#state;
    if (state.status !== 'signed-in') return Promise.reject(new Error('Not signed in'));
    // Concurrent requests share the one renewal the client asks for; a second prompt cannot arise.
    return new Promise<string>((resolve, reject) => {
      const renewal: Renewal = {
        confirm: () => {
          sign().then(
            async (signature) => {
              resolve(signature);
              const current = this.#state;
              if (current.status !== 'signed-in') return;
              // The client stores the new message once this signature returns to it.
              await Promise.resolve();
              const expiresAt = (await current.client.signedIn())?.expiresAt;
              if (this.#state === current || this.#state.status === 'signed-in') this.#set({ ...current, renewal: undefined, expiresAt });
            },
            (error: unknown) => {
              const current = this.#state;
              if (current.status === 'signed-in') this.#set({ ...current, renewal: { ...renewal, error } });
            },
          );
        },
        decline: () => {
          reject(new Error('The sign-in was not renewed'));
          if (this.#state.status === 'signed-in') this.#set({ status: 'signed-out' });
        },
      };
      this.#set({ ...state, renewal });
    });
  }

  #set(state: SessionState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener(state);
  }
}

/** Refusals that a fresh signature cures: the client signs anew (asking the admin first) and sends the request again. */
const RESIGN_CODES = new Set(['AUTH_MESSAGE_EXPIRED', 'AUTH_MESSAGE_REVOKED']);

/** A refusal that ends a signed-in session: a suspended (or removed) admin, or a 401 no new signature cures. */
function endsSession(refusal: ProblemError): boolean {
  return refusal.code === 'ADMIN_SUSPENDED' || (refusal.status === 401 && !RESIGN_CODES.has(refusal.code));
}

/** Why the session ended, in a sentence for the sign-in screen. */
function endReason(refusal: ProblemError): string {
  if (refusal.code === 'ADMIN_SUSPENDED') {
    return /REMOVED/.test(refusal.detail)
      ? 'You were signed out: your admin account was removed from the tenant.'
      : 'You were signed out: an admin of your tenant suspended your account. An admin who may manage you can reactivate it.';
  }
  if (refusal.code === 'AUTH_UNKNOWN_WALLET') {
    return 'You were signed out: this wallet no longer belongs to an admin here. Your admin account was removed, or this wallet was taken off it.';
  }
  return 'You were signed out: the service no longer accepts your signature.';
}

/** The problem document of a refusal; undefined for any other body. */
async function problemOf(response: Response): Promise<ProblemError | undefined> {
  const error = await errorOf(response);
  return error instanceof ProblemError ? error : undefined;
}
