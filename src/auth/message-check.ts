import { createHash } from 'node:crypto';
import type { AuthConfig } from '../config/config.ts';
import { AppError, type ErrorCode, isAppError } from '../errors/app-error.ts';
import type { MessageClaims } from './message-claims.ts';
import { decodeMessageHeader } from './message-header.ts';
import { readMessageClaims } from './read-message-claims.ts';
import type { AddressRecoverer } from './signature/address-recoverer.ts';
import { isHexSignature, parseRecoverableSignature } from './signature/parse-signature.ts';
import { recoverPersonalSigner } from './signature/recover-personal-signer.ts';

/** A new credential as received, to check without any I/O. */
export interface MessageCheckInput {
  wal: string;
  sig: string;
  mes: string;
  now: number;
  /** Contract wallets are checked (an RPC is configured): a SIWE message's signature may then have any length. */
  contractWallets: boolean;
}

/**
 * What the message says and who signed it; or the refusal, as data, so that it crosses from a
 * worker thread unchanged (an AppError's code and message).
 */
export type MessageCheck =
  | {
      ok: true;
      claims: MessageClaims;
      /** Identifies the signed message of this wallet, for revocation and nonce claims. */
      messageHash: string;
      /** The key that signed it (lowercase), or undefined: none (a contract wallet's, or forged), or not a key's form. */
      signer: string | undefined;
    }
  | { ok: false; code: ErrorCode; message: string };

/**
 * Everything a new credential needs that is pure computation, in the order its refusals come:
 * the header's encoding, the message's claims (grammar, domain, address, chain, times), the
 * signature's form and its signer (secp256k1 recovery). The same function runs on the event loop
 * and on the verification workers (see verification-pool.ts).
 */
export function checkMessage(input: MessageCheckInput, config: AuthConfig, recoverer: AddressRecoverer): MessageCheck {
  try {
    const message = decodeMessageHeader(input.mes);
    const claims = readMessageClaims(message.text, input.wal, config, input.now);
    // Contract wallets sign with signatures of any length; only they may skip the 65-byte form,
    // and only for a message that names the chain to ask (a plain message names none).
    const anyLength = input.contractWallets && claims.chainId !== undefined && isHexSignature(input.sig) && input.sig.length !== 132;
    const signer = anyLength ? undefined : recoverPersonalSigner(recoverer, parseRecoverableSignature(input.sig), message.bytes);
    return { ok: true, claims, messageHash: messageHashOf(input.wal, message.bytes), signer };
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

/** The refusal of a check, as the AppError it was. */
export const refusalOf = (check: Extract<MessageCheck, { ok: false }>): AppError => new AppError(check.code, check.message);

export function messageHashOf(wal: string, bytes: Uint8Array): string {
  return createHash('sha256').update(wal.toLowerCase()).update('\0').update(bytes).digest('hex');
}
