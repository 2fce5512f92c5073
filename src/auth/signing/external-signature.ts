import { AppError } from '../../errors/app-error.ts';
import { createAddressRecoverer } from '../signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../signature/parse-signature.ts';
import { recoverPersonalSigner } from '../signature/recover-personal-signer.ts';
import { isHexAddress, toEip55 } from '../siwe/eip55.ts';
import { looksLikeSiweMessage, parseSiweMessage, SiweParseError } from '../siwe/siwe-message.ts';
import { type SignInHeaders, signInHeaders } from './sign-in-headers.ts';

// A BOM is part of what was signed: it must survive into X-MES.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface ExternalSignature {
  /** The exact bytes the wallet signed. */
  message: Uint8Array;
  /** personal_sign output: 65 bytes r ‖ s ‖ v in hex. */
  signature: string;
  /** Whose signature it should be; required for a message that is not SIWE (it names no address). */
  address?: string;
}

function signerOf(text: string, address: string | undefined): string {
  if (address !== undefined && !isHexAddress(address)) {
    throw new AppError('VALIDATION_FAILED', 'The address must be 0x followed by 40 hexadecimal digits');
  }
  if (!looksLikeSiweMessage(text)) {
    if (address === undefined) {
      throw new AppError('VALIDATION_FAILED', 'The message is not Sign-In with Ethereum, so it names no wallet: give the signing address');
    }
    return address;
  }
  let claimed: string;
  try {
    claimed = parseSiweMessage(text).address;
  } catch (error) {
    const reason = error instanceof SiweParseError ? error.message : String(error);
    throw new AppError('AUTH_MESSAGE_MALFORMED', `The message is not a valid Sign-In with Ethereum message: ${reason}`);
  }
  if (address !== undefined && address.toLowerCase() !== claimed.toLowerCase()) {
    throw new AppError('AUTH_ADDRESS_MISMATCH', `The message signs in ${claimed}, not ${address}`);
  }
  return claimed;
}

/**
 * The sign-in headers for a message signed elsewhere (a browser or hardware wallet), once the
 * signature is known to recover to the message's address: a wrong key or an altered message is
 * reported here rather than as a 401 later.
 */
export function headersFromSignature(input: ExternalSignature): SignInHeaders {
  let text: string;
  try {
    text = utf8.decode(input.message);
  } catch {
    throw new AppError('AUTH_MESSAGE_MALFORMED', 'The message is not valid UTF-8');
  }
  const expected = signerOf(text, input.address);
  const signature = input.signature.startsWith('0x') ? input.signature : `0x${input.signature}`;
  const signer = recoverPersonalSigner(createAddressRecoverer(), parseRecoverableSignature(signature), input.message);
  if (signer === undefined || signer !== expected.toLowerCase()) {
    throw new AppError(
      'AUTH_SIGNATURE_INVALID',
      `The signature is not ${toEip55(expected)}'s signature of this message${signer ? ` (it was made by ${toEip55(signer)})` : ''}`,
    );
  }
  return signInHeaders(toEip55(expected), signature, text);
}
