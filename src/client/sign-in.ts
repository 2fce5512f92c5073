import { messageHeader } from './encoding.ts';
import type { WalletSigner } from './signers.ts';
import { formatSignInMessage, toChecksumAddress } from './siwe.ts';

/** The headers of one signed message. */
export interface SignedHeaders {
  'X-WAL': string;
  'X-SIG': string;
  'X-MES': string;
}

export interface SignInSettings {
  signer: WalletSigner;
  /** The service's origin: its host is the message's domain, the origin its URI. */
  baseUrl: URL;
  lifetimeSeconds: number;
  statement: string;
  nonce(): Promise<string>;
  now(): number;
  /** A message signed before (by an earlier run of a tool), presented until it is due for renewal. */
  resume?: { headers: SignedHeaders; expiresAt: number };
}

interface Signed {
  headers: SignedHeaders;
  /** When the message expires, epoch ms. */
  expiresAt: number;
}

/**
 * One signature per message lifetime: a wallet prompt per request would make the client unusable
 * in a page. Concurrent callers share one signing; the message is replaced shortly before it
 * expires (a tenth of its lifetime, at most a minute, so a request in flight does not arrive late).
 */
export class SignInSession {
  readonly #settings: SignInSettings;
  #current: Promise<Signed> | undefined;

  constructor(settings: SignInSettings) {
    this.#settings = settings;
    if (settings.resume) this.#current = Promise.resolve(settings.resume);
  }

  async headers(): Promise<SignedHeaders> {
    const current = this.#current;
    if (current) {
      const signed = await current.catch(() => undefined);
      if (signed && signed.expiresAt - this.#renewMargin() > this.#settings.now()) return signed.headers;
      // A failed or stale signing is replaced, unless another caller has replaced it meanwhile.
      if (this.#current === current) this.#current = undefined;
    }
    this.#current ??= this.#sign();
    return (await this.#current).headers;
  }

  /** Drops `headers` (the service refused them) so that the next call signs anew; newer headers are kept. */
  async discard(headers?: SignedHeaders): Promise<void> {
    const current = this.#current;
    if (!current) return;
    const signed = await current.catch(() => undefined);
    if ((headers === undefined || signed?.headers === headers) && this.#current === current) this.#current = undefined;
  }

  /** The headers in use, without signing: undefined when none are. */
  async peek(): Promise<SignedHeaders | undefined> {
    return (await this.#current?.catch(() => undefined))?.headers;
  }

  /** The message in use and its expiry, without signing: undefined when none is, or it has expired. */
  async signedIn(): Promise<Signed | undefined> {
    const signed = await this.#current?.catch(() => undefined);
    return signed && signed.expiresAt > this.#settings.now() ? signed : undefined;
  }

  #renewMargin(): number {
    return Math.min(60_000, (this.#settings.lifetimeSeconds * 1000) / 10);
  }

  async #sign(): Promise<Signed> {
    const { signer, baseUrl, lifetimeSeconds, statement } = this.#settings;
    const [address, chainId, nonce] = await Promise.all([signer.getAddress(), signer.getChainId(), this.#settings.nonce()]);
    // To the millisecond, as the message shows it: the service then knows exactly whether it was
    // signed before a sign-out everywhere (a time in whole seconds counts as the end of its second).
    const issuedAt = this.#settings.now();
    const expiresAt = issuedAt + lifetimeSeconds * 1000;
    const message = formatSignInMessage({
      domain: baseUrl.host,
      address,
      statement,
      uri: baseUrl.origin,
      chainId,
      nonce,
      issuedAt: new Date(issuedAt),
      expirationTime: new Date(expiresAt),
    });
    const signature = await signer.signMessage(message);
    return { headers: { 'X-WAL': toChecksumAddress(address), 'X-SIG': signature, 'X-MES': messageHeader(message) }, expiresAt };
  }
}
