import type { AuthConfig } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import type { MessageClaims } from './message-claims.ts';
import { plainClaims } from './plain-message-claims.ts';
import { type ParsedSiweMessage, readSiweMessage, SiweParseError } from './siwe/siwe-message.ts';
import { siweClaims } from './siwe-claims.ts';

/**
 * Checks what a message says (not who signed it): SIWE by EIP-4361 and our domain and time
 * rules, other messages by the plain-message policy. The text is parsed once, here; each kind's
 * rules then read what the parse gave.
 */
export function readMessageClaims(text: string, walletAddress: string, config: AuthConfig, now: number): MessageClaims {
  let parsed: ParsedSiweMessage | undefined;
  try {
    parsed = readSiweMessage(text);
  } catch (error) {
    const reason = error instanceof SiweParseError ? error.message : 'it does not follow the EIP-4361 grammar';
    throw new AppError('AUTH_MESSAGE_MALFORMED', `X-MES is not a valid Sign-In with Ethereum message: ${reason}`);
  }
  return parsed === undefined ? plainClaims(text, config, now) : siweClaims(parsed, walletAddress, config, now);
}
