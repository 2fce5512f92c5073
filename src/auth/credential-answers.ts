import type { Principal } from './principal.ts';

/** An answer made from a credential and its admin: GET /api/auth/test's, serialized once. */
interface KeptAnswer {
  principal: Principal;
  walletAddress: string | undefined;
  body: string;
}

/**
 * Where a cached credential keeps its answer (see WalletAuthenticator.signatures, keyed on X-SIG
 * and matched on X-WAL and X-MES): it lives and expires with the credential, and a credential the
 * cache no longer holds is never found again, answer included.
 */
export interface AnswerSlot {
  answer: KeptAnswer | undefined;
}

/**
 * The answers kept on cached credentials, at most `max` at once: an answer holds the whole X-MES
 * (up to MAX_HEADER_BYTES) where the credential holds at most 1 KiB of it, so the credentials'
 * own bound would not bound the answers' memory. The answer kept longest is dropped first.
 */
export class CredentialAnswers {
  private readonly holders: (AnswerSlot | undefined)[] = [];
  private next = 0;

  constructor(private readonly max: number) {}

  /**
   * The answer kept for the credential when it was made for the same admin record (a new Principal
   * whenever the record changes) and the same X-Wallet-Address: the one header sent that the
   * credential is not matched on.
   */
  get(slot: AnswerSlot | undefined, principal: Principal, walletAddress: string | undefined): string | undefined {
    const answer = slot?.answer;
    return answer !== undefined && answer.principal === principal && answer.walletAddress === walletAddress ? answer.body : undefined;
  }

  set(slot: AnswerSlot, answer: KeptAnswer): void {
    if (this.max <= 0) return;
    // A slot holding an answer already has its place in the ring: it is replaced there.
    if (slot.answer === undefined) {
      const dropped = this.holders[this.next];
      if (dropped !== undefined) dropped.answer = undefined;
      this.holders[this.next] = slot;
      this.next = (this.next + 1) % this.max;
    }
    slot.answer = answer;
  }
}
