import type { AddressRecoverer } from './address-recoverer.ts';
import { parseRecoverableSignature } from './parse-signature.ts';
import { personalMessageHash } from './personal-message-hash.ts';

/**
 * The lowercase address whose key made this personal_sign signature of exactly `message`, or
 * undefined when none did. Throws AUTH_SIGNATURE_MALFORMED for signatures a wallet never makes.
 */
export function recoverPersonalSigner(recoverer: AddressRecoverer, signature: string, message: Uint8Array): string | undefined {
  return recoverer.recover(personalMessageHash(message), parseRecoverableSignature(signature));
}
