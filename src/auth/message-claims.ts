/** What a message, once accepted, vouches for. Times are epoch ms. */
export interface MessageClaims {
  kind: 'siwe' | 'plain';
  /** The chain a SIWE message names; a plain message names none. */
  chainId: number | undefined;
  /** Server nonce the message must have been issued, when the policy asks for one. */
  nonce: string | undefined;
  /**
   * The latest instant at which the message may have been signed, by what it says (SIWE Issued At,
   * a plain message's timestamp): a time in whole seconds may mean any moment of that second, so
   * it counts as its end. A sign-out everywhere ends the messages signed before it. 0: it does not say.
   */
  signedBy: number;
  /** Last instant (exclusive, skew included) at which the message still authenticates. */
  validUntil: number;
}

/** Whether an RFC 3339 / ISO-8601 time gives fractions of a second. */
export const hasFraction = (time: string): boolean => /:\d{2}\.\d/.test(time);
