import type { AddressRecoverer } from './address-recoverer.ts';
import type { RecoverableSignature } from './parse-signature.ts';
import { personalMessageHash } from './personal-message-hash.ts';

/** The lowercase address whose key made this personal_sign signature of exactly `message`, or undefined when none did. */
export function recoverPersonalSigner(
  recoverer: AddressRecoverer,
  signature: RecoverableSignature,
  message: Uint8Array,
): string | undefined {
  return recoverer.recover(personalMessageHash(message), signature);
}
