import { createHash } from 'node:crypto';
import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import type { PrincipalRecord } from '../model/admins.ts';
import type { AuthRecords } from '../model/sign-in-records.ts';
import { formatRfc3339 } from '../time/rfc3339.ts';
import { AuthState } from './auth-state.ts';
import { BoundedCache } from './bounded-cache.ts';
import type { ContractWalletVerifier } from './contract-wallet-verifier.ts';
import { type AnswerSlot, CredentialAnswers } from './credential-answers.ts';
import type { ChainCheckAllowance } from './limits/chain-check-allowance.ts';
import { checkMessage, refusalOf } from './message-check.ts';
import { decodeMessageHeader } from './message-header.ts';
import { NONCE_KEY_NAME, newNonceKey, SignedNonces } from './nonces.ts';
import { type Principal, principalOf } from './principal.ts';
import type { AddressRecoverer } from './signature/address-recoverer.ts';
import { toEip55 } from './siwe/siwe-message.ts';
import type { MessageChecker } from './verification-pool.ts';

/** The authentication headers as received; undefined when not sent. */
export interface WalletHeaders {
  wal: string | undefined;
  sig: string | undefined;
  mes: string | undefined;
  walletAddress: string | undefined;
}

export interface Authentication {
  principal: Principal;
  /** The headers as received, which the authentication vouched for. */
  received: WalletHeaders;
  /**
   * When these headers were verified on an earlier request (the credential is in use, not new):
   * their cache entry, which keeps what is answered to them (see `answers`).
   */
  cached: AnswerSlot | undefined;
  /** EIP-55 checksum form. */
  walletAddress: string;
  /** Identifies the signed message of this wallet, for revocation. */
  messageHash: string;
  validUntil: number;
}

interface VerifiedMessage {
  messageHash: string;
  /**
   * The latest instant the message may have been signed: what it says (see MessageClaims), but
   * never after this service first checked it. A sign-out everywhere ends those before it.
   */
  signedBy: number;
  validUntil: number;
  walletAddress: string;
  /** A server nonce the message has yet to claim (AUTH_REQUIRE_SERVER_NONCE): claimed once its admin is known, then cached. */
  unclaimedNonce?: { nonce: string; keepUntil: number } | undefined;
}

/** What proveKey found: the credential's proof, from the cache or checked now, and what it was found under. */
interface ProofOfKey {
  headers: WalletHeaders;
  wal: string;
  signature: string;
  /** X-MES as the cache keeps it (see cachedMessageForm). */
  mes: string;
  now: number;
  /** The cache entry, when the credential was verified on an earlier request. */
  cached: VerifiedCredential | undefined;
  verified: VerifiedMessage;
}

/** A credential whose signature and message rules were checked, cached under its X-SIG, with its answer. */
interface VerifiedCredential extends VerifiedMessage, AnswerSlot {
  /** X-WAL and X-MES as received (X-MES by its sha256 when long): what else the proof covered. */
  wal: string;
  mes: string;
}

/**
 * X-MES values up to this length are kept as received in the cache; longer ones by their sha256,
 * so that the cache's memory stays bounded by entries × this length whatever callers send.
 */
const RAW_MESSAGE_MAX_LENGTH = 1024;

/** Answers kept serialized (see CredentialAnswers): a short list, each being a couple of KiB and more. */
const MAX_KEPT_ANSWERS = 1000;

export const WALLET_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

export interface WalletAuthenticatorDeps {
  config: AuthConfig;
  store: AuthRecords;
  recoverer: AddressRecoverer;
  /** Checks new credentials off the event loop (a VerificationPool); without it, they are checked here with `recoverer`. */
  checker?: MessageChecker | undefined;
  contractWallets?: ContractWalletVerifier | undefined;
  /** Lets a client's contract-wallet checks reach the chain (see ChainCheckAllowance); without it, any may. */
  chainChecks?: Pick<ChainCheckAllowance, 'admit'> | undefined;
  /**
   * Wallets that may not sign in here (lowercase address → why, and what to do): the published
   * development wallet on a service others can reach. Refused with PUBLISHED_WALLET_REFUSED.
   */
  refusedWallets?: ReadonlyMap<string, string> | undefined;
  now?: () => number;
}

/**
 * Turns the X-WAL / X-SIG / X-MES headers into a principal. Proof of key (signature and message
 * rules) is cached per exact credential until the message expires; revocation and the admin's
 * state are looked up on every request through AuthState.
 */
export class WalletAuthenticator {
  /** The one cache of credentials, keyed on X-SIG. */
  readonly signatures: BoundedCache<VerifiedCredential>;
  /** What GET /api/auth/test answers a credential in use, kept on its entry in `signatures`. */
  readonly answers: CredentialAnswers;
  private readonly state: AuthState;
  private readonly now: () => number;
  private readonly principals = new WeakMap<PrincipalRecord, Principal>();
  private nonces: Promise<SignedNonces> | undefined;

  constructor(private readonly deps: WalletAuthenticatorDeps) {
    this.signatures = new BoundedCache(deps.config.signatureCacheSize);
    this.answers = new CredentialAnswers(Math.min(deps.config.signatureCacheSize, MAX_KEPT_ANSWERS));
    this.state = new AuthState(deps.store, deps.config.stateRefreshSeconds * 1000, deps.config.signatureCacheSize);
    this.now = deps.now ?? Date.now;
  }

  /**
   * `client` (the caller's address) is what its contract-wallet checks are charged to; without it
   * (the CLI, tests) they are not limited per client.
   */
  async authenticate(headers: WalletHeaders, client?: string): Promise<Authentication> {
    return this.authenticateNow(headers, client);
  }

  /**
   * authenticate, without a promise where nothing is to be waited for: a credential in use whose
   * revocations and admin are known (nearly every request) is answered at once, a promise per step
   * being a measurable share of such a request (bench: auth-warm). Throws, or rejects, as
   * authenticate rejects; the checks are the same, in the same order.
   */
  authenticateNow(headers: WalletHeaders, client?: string): Authentication | Promise<Authentication> {
    const proof = this.proveKey(headers, client, false);
    return proof instanceof Promise ? proof.then((p) => this.unrevoked(p)) : this.unrevoked(proof);
  }

  private unrevoked(proof: ProofOfKey): Authentication | Promise<Authentication> {
    const revoked = this.state.isRevoked(proof.verified.messageHash, proof.now);
    return revoked instanceof Promise ? revoked.then((r) => this.ofAdmin(proof, r)) : this.ofAdmin(proof, revoked);
  }

  private ofAdmin(proof: ProofOfKey, revoked: boolean): Authentication | Promise<Authentication> {
    if (revoked) throw new AppError('AUTH_MESSAGE_REVOKED', 'This signed message was logged out; sign a new one');
    const record = this.state.principalRecord(proof.wal, proof.now);
    return record instanceof Promise ? record.then((r) => this.admitted(proof, r)) : this.admitted(proof, record);
  }

  private admitted(proof: ProofOfKey, record: PrincipalRecord | undefined): Authentication | Promise<Authentication> {
    if (record === undefined) {
      // What to do about it, for whoever holds a wallet nobody invited yet (the console shows it as is).
      throw new AppError(
        'AUTH_UNKNOWN_WALLET',
        'The signature is valid but no admin has this wallet: ask an owner of the tenant for an invitation, then accept it with this wallet',
      );
    }
    if (record.admin.status !== 'ACTIVE') {
      throw new AppError('ADMIN_SUSPENDED', `The admin of this wallet is ${record.admin.status}`);
    }
    const { verified } = proof;
    const signedOutBefore = record.admin.signedOutBefore;
    if (signedOutBefore !== null && verified.signedBy < signedOutBefore) {
      throw new AppError(
        'AUTH_MESSAGE_REVOKED',
        `Every message this admin signed before ${formatRfc3339(signedOutBefore)} was signed out; sign a new one`,
      );
    }
    if (verified.unclaimedNonce !== undefined) {
      // Only now, for an admin's valid message: a stranger signing with throwaway keys writes nothing.
      return this.claimNonce(verified.unclaimedNonce, verified.messageHash).then(() => {
        const claimed = { ...verified, unclaimedNonce: undefined };
        this.signatures.set(proof.signature, { ...claimed, wal: proof.wal, mes: proof.mes, answer: undefined }, claimed.validUntil);
        return this.authentication(proof, record, claimed);
      });
    }
    return this.authentication(proof, record, verified);
  }

  private authentication(proof: ProofOfKey, record: PrincipalRecord, verified: VerifiedMessage): Authentication {
    return {
      principal: this.principalView(record),
      received: proof.headers,
      cached: proof.cached,
      walletAddress: verified.walletAddress,
      messageHash: verified.messageHash,
      validUntil: verified.validUntil,
    };
  }

  /**
   * The wallet of a signed-in request that is no admin's yet: the one call such a wallet makes is
   * accepting an invitation. Its message is checked as every other (signature, rules, nonce,
   * revocation); WALLET_TAKEN when an admin has the wallet already.
   */
  async authenticateNewcomer(headers: WalletHeaders, client?: string): Promise<{ walletAddress: string; messageHash: string }> {
    const { wal, signature, mes, now, verified } = await this.proveKey(headers, client, true);
    if (await this.state.isRevoked(verified.messageHash, now)) {
      throw new AppError('AUTH_MESSAGE_REVOKED', 'This signed message was logged out; sign a new one');
    }
    if ((await this.state.principalRecord(wal, now)) !== undefined) {
      throw new AppError('WALLET_TAKEN', `Wallet ${toEip55(wal.toLowerCase())} is already an admin's: sign in with it instead`);
    }
    if (verified.unclaimedNonce !== undefined) {
      await this.claimNonce(verified.unclaimedNonce, verified.messageHash);
      this.signatures.set(signature, { ...verified, unclaimedNonce: undefined, wal, mes, answer: undefined }, verified.validUntil);
    }
    return { walletAddress: verified.walletAddress, messageHash: verified.messageHash };
  }

  /** Ends at once, on this instance, what the admins of these wallets were signed in as: read afresh on their next request. */
  forgetWallets(wallets: readonly string[]): void {
    for (const wallet of wallets) this.state.forgetPrincipal(wallet);
  }

  /** The headers' shape, then the proof of key: from the cache, or verified now (see verify); a promise only then. */
  private proveKey(headers: WalletHeaders, client: string | undefined, newcomer: boolean): ProofOfKey | Promise<ProofOfKey> {
    requireWalletHeaders(headers);
    const wal = headers.wal!;
    if (!WALLET_ADDRESS.test(wal)) {
      throw new AppError('AUTH_ADDRESS_MALFORMED', 'X-WAL must be 0x followed by 40 hexadecimal digits');
    }
    if (headers.walletAddress !== undefined && headers.walletAddress.toLowerCase() !== wal.toLowerCase()) {
      throw new AppError('AUTH_ADDRESS_MISMATCH', 'X-Wallet-Address, when sent, must be the same address as X-WAL');
    }
    const now = this.now();
    // Keyed on X-SIG, the shortest part, and compared on the other two as received: a repeated
    // credential is recognised without decoding or hashing anything.
    const signature = headers.sig!;
    const mes = cachedMessageForm(headers.mes!);
    const cached = this.signatures.get(signature, now, (entry) => entry.wal === wal && entry.mes === mes);
    if (cached !== undefined) return { headers, wal, signature, mes, now, cached, verified: cached };
    return this.verify(wal, signature, headers.mes!, now, client, newcomer).then((verified) => {
      // One that must still claim its nonce is cached once it has (see admitted): until then it proves nothing.
      if (verified.unclaimedNonce === undefined)
        this.signatures.set(signature, { ...verified, wal, mes, answer: undefined }, verified.validUntil);
      return { headers, wal, signature, mes, now, cached: undefined, verified };
    });
  }

  /**
   * A nonce for a Sign-In with Ethereum message, signed rather than stored: with
   * AUTH_REQUIRE_SERVER_NONCE a message must carry one, and only one message can use it.
   */
  async issueNonce(): Promise<{ nonce: string; expiresAt: number }> {
    return (await this.signedNonces()).issue(this.now(), this.deps.config.nonceTtlSeconds);
  }

  /** Revokes the presented message for every instance sharing the store. */
  async logout(authentication: Authentication): Promise<void> {
    await this.state.revoke(authentication.messageHash, authentication.validUntil, this.now());
  }

  /**
   * A new credential: the message and its signer checked (checkMessage: on a worker when the pool
   * has them), then what needs the service's state — the nonce's own check, a contract wallet's
   * approval. The nonce is claimed later, once the admin is known (see authenticate).
   */
  private async verify(
    wal: string,
    signature: string,
    mes: string,
    now: number,
    client: string | undefined,
    newcomer: boolean,
  ): Promise<VerifiedMessage> {
    const refusal = this.deps.refusedWallets?.get(wal.toLowerCase());
    if (refusal !== undefined) throw new AppError('PUBLISHED_WALLET_REFUSED', refusal);
    const input = { wal, sig: signature, mes, now, contractWallets: this.deps.contractWallets !== undefined };
    const checked = this.deps.checker ? await this.deps.checker.check(input) : checkMessage(input, this.deps.config, this.deps.recoverer);
    if (!checked.ok) throw refusalOf(checked);
    const { claims, messageHash } = checked;
    const nonce = claims.kind === 'siwe' && this.deps.config.requireServerNonce ? await this.issuedNonce(claims.nonce!, now) : undefined;
    if (checked.signer !== wal.toLowerCase()) await this.checkContractWallet(wal, signature, mes, claims.chainId, now, client, newcomer);
    return {
      messageHash,
      // A message cannot have been signed after this service first saw it, whatever its Issued At
      // says: one dated ahead of the server's clock (within AUTH_CLOCK_SKEW) and seen before a sign-out
      // everywhere is ended by it, like every other message seen before it.
      signedBy: Math.min(claims.signedBy, now),
      validUntil: claims.validUntil,
      walletAddress: toEip55(wal),
      // Kept as long as either could still be presented: the nonce may outlive a short message.
      unclaimedNonce: nonce === undefined ? undefined : { nonce: claims.nonce!, keepUntil: Math.max(claims.validUntil, nonce.expiresAt) },
    };
  }

  /** Claims a server nonce for this message; AUTH_NONCE_INVALID when another message holds it. */
  private async claimNonce({ nonce, keepUntil }: { nonce: string; keepUntil: number }, messageHash: string): Promise<void> {
    const claim = await this.deps.store.claimNonce(nonce, messageHash, keepUntil);
    if (claim === 'claimed-by-another-message') {
      throw new AppError(
        'AUTH_NONCE_INVALID',
        'The message nonce was already used by another message; get a new one from GET /api/auth/nonce',
      );
    }
  }

  /** A nonce this service issued and that has not expired, or AUTH_NONCE_INVALID. */
  private async issuedNonce(nonce: string, now: number): Promise<{ expiresAt: number }> {
    const check = (await this.signedNonces()).check(nonce, now);
    if (!check.valid) {
      throw new AppError(
        'AUTH_NONCE_INVALID',
        check.reason === 'expired'
          ? 'The message nonce has expired; get a new one from GET /api/auth/nonce'
          : 'The message nonce was not issued by this service; get one from GET /api/auth/nonce',
      );
    }
    return check;
  }

  /** The key every instance on this database shares, read (or made) once. */
  private signedNonces(): Promise<SignedNonces> {
    this.nonces ??= this.deps.store
      .serviceSecret(NONCE_KEY_NAME, newNonceKey)
      .then((key) => new SignedNonces(Buffer.from(key, 'hex')))
      .catch((error: unknown) => {
        this.nonces = undefined; // asked again on the next call, once the database answers
        throw error;
      });
    return this.nonces;
  }

  /** The API view of a record, built once per cached record rather than on every request. */
  private principalView(record: PrincipalRecord): Principal {
    let principal = this.principals.get(record);
    if (principal === undefined) {
      principal = Object.freeze(principalOf(record));
      this.principals.set(record, principal);
    }
    return principal;
  }

  /**
   * The wallet's key did not make the signature: for a SIWE message, the wallet may be a contract
   * that approves it on the message's own chain. The chain is asked only about an admin's wallet,
   * so bad signatures for unknown wallets cost no RPC call; the answer is the same either way. A
   * call is charged to `client` (see ChainCheckAllowance).
   */
  private async checkContractWallet(
    wal: string,
    signature: string,
    mes: string,
    chainId: number | undefined,
    now: number,
    client: string | undefined,
    newcomer: boolean,
  ): Promise<void> {
    const contractWallets = this.deps.contractWallets;
    if (contractWallets === undefined || chainId === undefined) throw invalidSignature();
    if (!contractWallets.mayVerifyOn(chainId)) throw invalidSignature(chainId);
    // A newcomer reaches this only with an open invitation's token, checked first.
    if (!newcomer && (await this.state.principalRecord(wal, now)) === undefined) throw invalidSignature();
    const chainChecks = this.deps.chainChecks;
    const admit = client === undefined || chainChecks === undefined ? undefined : () => chainChecks.admit(client, now);
    if (!(await contractWallets.verify(chainId, wal, decodeMessageHeader(mes).bytes, signature, admit))) throw invalidSignature();
  }
}

/** AUTH_HEADERS_MISSING unless X-WAL, X-SIG and X-MES were all sent: the first check of any sign-in, and the cheapest. */
export function requireWalletHeaders(headers: WalletHeaders): void {
  const missing = (['X-WAL', 'X-SIG', 'X-MES'] as const).filter((_name, i) => [headers.wal, headers.sig, headers.mes][i] === undefined);
  if (missing.length > 0) {
    throw new AppError('AUTH_HEADERS_MISSING', `Authentication required: header ${missing.join(', ')} missing`);
  }
}

function invalidSignature(chainWithoutRpc?: number): AppError {
  const detail = 'X-SIG is not a signature of X-MES by the wallet X-WAL';
  return new AppError(
    'AUTH_SIGNATURE_INVALID',
    chainWithoutRpc === undefined
      ? detail
      : `${detail}'s key, and no RPC is configured for chain ${chainWithoutRpc} to ask whether the wallet is a contract that approves it`,
  );
}

function cachedMessageForm(messageHeader: string): string {
  return messageHeader.length <= RAW_MESSAGE_MAX_LENGTH
    ? messageHeader
    : `sha256:${createHash('sha256').update(messageHeader, 'latin1').digest('base64')}`;
}
