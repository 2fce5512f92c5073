/**
 * The one error type of the project. `code` is stable and documented; clients branch on it,
 * so a code is never renamed once released. HTTP status lives here so that every layer
 * (HTTP, CLI) reports the same failure the same way.
 */
export const ErrorCodes = {
  // 400
  VALIDATION_FAILED: 400,
  INVALID_TIMESTAMP: 400,
  INVALID_PATH: 400,
  INSTANT_BEFORE_CHANNEL: 400,
  // Backup locks (docs/backup-locks.md): an until not in the future, or beyond BACKUP_LOCK_MAX_DAYS
  LOCK_IN_PAST: 400,
  LOCK_TOO_LONG: 400,
  HTTP_MALFORMED: 400,
  // An outbound URL a tenant set (a webhook) that the service will not reach: a private, loopback,
  // link-local or metadata address, a scheme other than https (docs/events.md, "Outbound addresses")
  OUTBOUND_ADDRESS_REFUSED: 400,
  // 400, CLI only (`wallet-admin sign --keystore`): never an HTTP answer
  KEYSTORE_INVALID: 400,
  KEYSTORE_PASSWORD_WRONG: 400,
  // 400, CLI only (`wallet-admin audit verify`): the export does not verify (docs/audit-chain.md)
  AUDIT_CHAIN_BROKEN: 400,
  // 400, CLI only (`wallet-admin offsite verify|restore|drill`): the off-site copy does not verify, or a rebuild was refused (docs/offsite.md)
  OFFSITE_COPY_BROKEN: 400,
  // 400, CLI only (`wallet-admin offsite restore`): the destination holds data; a rebuild writes only into an empty one
  OFFSITE_DESTINATION_NOT_EMPTY: 400,
  // 401 — who are you
  AUTH_HEADERS_MISSING: 401,
  AUTH_ADDRESS_MALFORMED: 401,
  AUTH_ADDRESS_MISMATCH: 401,
  AUTH_SIGNATURE_MALFORMED: 401,
  AUTH_SIGNATURE_INVALID: 401,
  AUTH_MESSAGE_MALFORMED: 401,
  AUTH_MESSAGE_REFUSED: 401,
  AUTH_MESSAGE_EXPIRED: 401,
  AUTH_MESSAGE_NOT_YET_VALID: 401,
  AUTH_DOMAIN_MISMATCH: 401,
  AUTH_CHAIN_NOT_ALLOWED: 401,
  AUTH_NONCE_INVALID: 401,
  AUTH_MESSAGE_REVOKED: 401,
  AUTH_UNKNOWN_WALLET: 401,
  // 403 — known but not allowed
  ADMIN_SUSPENDED: 403,
  PUBLISHED_WALLET_REFUSED: 403,
  PERMISSION_DENIED: 403,
  // Tenant self-service (docs/administration.md)
  PERMISSION_NOT_HELD: 403,
  ADMIN_OUT_OF_REACH: 403,
  OWNER_REQUIRED: 403,
  INVITATION_WALLET_MISMATCH: 403,
  WALLET_PROOF_INVALID: 400,
  LINK_INVALID: 403,
  // Approvals (docs/approvals.md)
  INTENT_SIGNATURE_INVALID: 400,
  INTENT_SIGNER_UNKNOWN: 403,
  INTENT_SIGNER_NOT_ELIGIBLE: 403,
  PROPOSER_ONLY: 403,
  // 404 — not found or not yours
  NOT_FOUND: 404,
  TENANT_NOT_FOUND: 404,
  ADMIN_NOT_FOUND: 404,
  CHANNEL_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  VERSION_NOT_FOUND: 404,
  BACKUP_NOT_FOUND: 404,
  BACKUP_FILE_NOT_FOUND: 404,
  WALLET_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  PROPOSAL_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  // A tenant with no off-site target of its own (docs/offsite.md)
  OFFSITE_NOT_SET: 404,
  DELIVERY_NOT_FOUND: 404,
  INSTANT_NOT_RETAINED: 404,
  // A resumable upload that is not the caller's, expired or was terminated (docs/uploads.md)
  UPLOAD_NOT_FOUND: 404,
  // 405
  METHOD_NOT_ALLOWED: 405,
  // 409
  WALLET_TAKEN: 409,
  CHANNEL_NAME_TAKEN: 409,
  CHANNEL_ARCHIVED: 409,
  LAST_OWNER: 409,
  LAST_WALLET: 409,
  // A delivery retried by hand that was delivered already (docs/events.md)
  DELIVERY_DONE: 409,
  // A tenant that has as many webhooks as one may have (docs/events.md)
  WEBHOOK_LIMIT_REACHED: 409,
  // A tenant's off-site target that is the service's own bucket, the operator's copy or another tenant's (docs/offsite.md)
  OFFSITE_TARGET_TAKEN: 409,
  ADMIN_REMOVED: 409,
  INVITATION_USED: 409,
  INVITATION_EXPIRED: 409,
  INVITATION_REVOKED: 409,
  INVITER_NOT_ENTITLED: 409,
  BACKUP_EXISTS: 409,
  PROPOSAL_CLOSED: 409,
  PROPOSAL_EXPIRED: 409,
  INTENT_ALREADY_GIVEN: 409,
  POLICY_UNSATISFIABLE: 409,
  // A step of a held operation's run, made after another instance took the run over (its lease lapsed): not made
  PROPOSAL_RUN_TAKEN_OVER: 409,
  // A locked backup (a retention lock before its date, or a legal hold) is not deleted, nor a compliance lock lifted
  BACKUP_LOCKED: 409,
  // A compliance lock is only ever extended: never shortened nor turned into governance
  LOCK_NOT_SHORTENABLE: 409,
  // A name that two stored records share in look-alike spellings an older release stored (NFC and NFD): which one is meant?
  NAME_AMBIGUOUS: 409,
  // A PATCH whose Upload-Offset is not where the resumable upload stands (tus 1.0.0)
  UPLOAD_OFFSET_MISMATCH: 409,
  // 412 — a conditional write (If-Match / If-None-Match) whose condition the live file does not meet
  PRECONDITION_FAILED: 412,
  // A tus request without Tus-Resumable: 1.0.0 (answered with Tus-Version)
  TUS_VERSION_UNSUPPORTED: 412,
  // 408 / 413 / 414 / 415 / 416 / 417 / 429 / 431
  REQUEST_TIMEOUT: 408,
  URI_TOO_LONG: 414,
  EXPECTATION_FAILED: 417,
  RANGE_NOT_SATISFIABLE: 416,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  HEADERS_TOO_LARGE: 431,
  // tus's checksum extension: a PATCH whose bytes do not have its Upload-Checksum (none of them count)
  UPLOAD_CHECKSUM_MISMATCH: 460,
  // 5xx
  INTERNAL_ERROR: 500,
  INTEGRITY_FAILED: 500,
  CONTRACT_WALLET_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  STORAGE_UNAVAILABLE: 503,
  CONSOLE_NOT_BUILT: 503,
  INSUFFICIENT_STORAGE: 507,
  // An upload past a tenant's or a channel's quota (docs/quotas.md): not the disk, which is INSUFFICIENT_STORAGE
  QUOTA_EXCEEDED: 507,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra members for the problem body; never secrets. */
  readonly extra: Record<string, unknown> | undefined;

  /** `options.cause` keeps the underlying failure (a driver error, say) for the log. */
  constructor(code: ErrorCode, message: string, extra?: Record<string, unknown>, options?: ErrorOptions) {
    // A refusal of the client's request (4xx) is answered, never debugged from a stack, and a
    // flood of them (bad signatures, then 429s) would spend most of its time capturing stacks:
    // only server failures carry one.
    if (ErrorCodes[code] >= 500) super(message, options);
    else {
      const depth = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      super(message, options);
      Error.stackTraceLimit = depth;
    }
    this.name = 'AppError';
    this.code = code;
    this.status = ErrorCodes[code];
    this.extra = extra;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
