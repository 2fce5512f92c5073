/**
 * Raised by the EIP-4361 parser and formatter. Lives apart from siwe-message.ts so that the
 * grammar modules can raise it without importing the message layer.
 */
export class SiweParseError extends Error {
  override readonly name = 'SiweParseError';
  /** The SiweMessage key at fault; undefined when the layout itself is wrong (order, blank lines, CR…). */
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}
