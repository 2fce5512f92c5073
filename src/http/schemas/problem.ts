import { STATUS_CODES } from 'node:http';
import { Type } from 'typebox';
import { EXAMPLE_ETAG } from './examples.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'Stable error code; docs/api.md lists them (Errors)' }),
    instance: Type.String(),
    requestId: Type.String(),
    retryAfterSeconds: Type.Optional(Type.Integer({ description: '429: seconds until a sign-in is tried again (also Retry-After)' })),
    currentEtag: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "412: the live file's ETag, null when there is none; for a folder or channel restore, the current plan's ETag",
      }),
    ),
    size: Type.Optional(Type.Integer({ description: "416: the file's length in bytes (also Content-Range: bytes */size)" })),
    outcome: Type.Optional(
      Type.Union([Type.Literal('unchanged'), Type.Literal('unknown'), Type.Literal('partial')], {
        description:
          "503 of a write: 'unchanged' when it was undone (nothing changed), 'unknown' when the database stopped answering while it was recorded (it took effect whole or not at all; the file's ETag tells which once the database is back); " +
          "'partial' when a folder or channel restore stopped after its safety backup (counts says how far it got, safetyBackup undoes it, the same restore again does what is left)",
      }),
    ),
    safetyBackup: Type.Optional(
      Type.String({
        description: 'A folder or channel restore stopped partway: the backup taken before its first change, which undoes it',
      }),
    ),
    counts: Type.Optional(
      Type.Object(
        { replaced: Type.Integer(), created: Type.Integer(), deleted: Type.Integer(), unchanged: Type.Integer(), failed: Type.Integer() },
        { description: 'A folder or channel restore stopped partway: the files it had done, left alone, and failed' },
      ),
    ),
    lookalikes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            spelling: Type.String({
              description: 'The stored name with every character outside printable ASCII as its code point: e\\u0301.txt',
            }),
          },
          { additionalProperties: true },
        ),
        {
          description:
            "NAME_AMBIGUOUS: the stored records a name means, which an older release stored under look-alike spellings (NFC and NFD): for files their folder, filename and, when live, etag, size and updatedAt (If-Match with one's etag chooses it); for channels their id and name",
        },
      ),
    ),
    channelCreatedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'INSTANT_BEFORE_CHANNEL: when the channel was created, the earliest instant a restore may name',
      }),
    ),
  },
  { $id: 'Problem', additionalProperties: true, description: 'RFC 9457 problem details (application/problem+json)' },
);

const problemRef = Type.Ref('Problem');

/** What each error status means on this API, as the OpenAPI document tells it. */
const MEANINGS: Record<ProblemStatus, string> = {
  400: 'Invalid request (VALIDATION_FAILED, INVALID_PATH, INVALID_TIMESTAMP, INSTANT_BEFORE_CHANNEL, HTTP_MALFORMED; a backup lock: LOCK_IN_PAST, LOCK_TOO_LONG)',
  401: 'Not signed in: wallet headers missing, malformed, expired, revoked or not an admin (AUTH_…)',
  403: 'Signed in, but not allowed (PERMISSION_DENIED, ADMIN_SUSPENDED, PUBLISHED_WALLET_REFUSED, LINK_INVALID, OWNER_REQUIRED)',
  404: 'No such channel, folder, file, version, backup or retained instant (…_NOT_FOUND, INSTANT_NOT_RETAINED)',
  409: 'Conflicts with the current state (BACKUP_EXISTS, BACKUP_LOCKED, LOCK_NOT_SHORTENABLE), or names two records an older release stored under look-alike spellings (NAME_AMBIGUOUS, with lookalikes)',
  412: 'If-Match / If-None-Match not met; nothing changed (PRECONDITION_FAILED, with currentEtag)',
  413: 'The body is too large (PAYLOAD_TOO_LARGE)',
  415: 'A body of a type this operation does not read (UNSUPPORTED_MEDIA_TYPE)',
  416: 'The Range is outside the file (RANGE_NOT_SATISFIABLE, with size and Content-Range: bytes */size)',
  429: 'Too many failed sign-ins, or contract-wallet checks under way, from this address (RATE_LIMITED, with Retry-After)',
  500: 'Internal error or a stored copy failed its sha256 check (INTERNAL_ERROR, INTEGRITY_FAILED)',
  503: 'A dependency is unavailable (SERVICE_UNAVAILABLE, STORAGE_UNAVAILABLE, CONTRACT_WALLET_UNAVAILABLE)',
  507: 'The storage is full (INSUFFICIENT_STORAGE)',
  460: "tus's checksum extension: the PATCH's bytes do not have its Upload-Checksum, and none of them count (UPLOAD_CHECKSUM_MISMATCH)",
};

export type ProblemStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 416 | 429 | 460 | 500 | 503 | 507;

type ProblemExample = { code: string; detail: string; [extra: string]: unknown };

/**
 * What each status answers most often, in the service's own words, for the document's examples.
 * `instance` is the operation's own path, filled in per operation (see problem-examples.ts), and
 * a 400's detail the operation's own answer to an unknown query parameter.
 */
const EXAMPLES: Record<ProblemStatus, ProblemExample> = {
  400: { code: 'VALIDATION_FAILED', detail: 'Unknown query parameter: dry_run; this operation takes no query parameter' },
  401: { code: 'AUTH_MESSAGE_EXPIRED', detail: 'The message expired at 2026-11-26T13:42:25.225Z' },
  403: { code: 'PERMISSION_DENIED', detail: 'This admin lacks the permission files:write on this channel' },
  404: { code: 'CHANNEL_NOT_FOUND', detail: 'No channel "demo" that this admin may use' },
  409: {
    code: 'BACKUP_EXISTS',
    detail: 'This channel already has a backup 20261126_123814; backups are one per second, try again in a second',
  },
  412: {
    code: 'PRECONDITION_FAILED',
    detail: `If-Match is not met: the file's current ETag is ${EXAMPLE_ETAG}; nothing was changed`,
    currentEtag: EXAMPLE_ETAG,
  },
  413: { code: 'PAYLOAD_TOO_LARGE', detail: 'the body is larger than the limit of 104857600 bytes' },
  415: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    detail: 'An upload is the bytes of the file, not an HTML form (multipart/form-data): use curl --data-binary @file (or -T file), not -F',
  },
  416: { code: 'RANGE_NOT_SATISFIABLE', detail: "Range bytes=100-200 is outside the file's 88 bytes", size: 88 },
  429: {
    code: 'RATE_LIMITED',
    detail: 'Too many failed sign-ins from this address (for IPv6, from its network); try again in 42 s',
    retryAfterSeconds: 42,
  },
  500: { code: 'INTERNAL_ERROR', detail: 'Internal error; the server log has the details under this requestId' },
  503: { code: 'SERVICE_UNAVAILABLE', detail: 'The metadata database is unavailable; try again shortly' },
  507: { code: 'INSUFFICIENT_STORAGE', detail: 'the storage is full; nothing was changed' },
  460: {
    code: 'UPLOAD_CHECKSUM_MISMATCH',
    detail:
      "The PATCH's bytes have the sha256 n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=, not 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU= as Upload-Checksum says: none of them count",
  },
};

/** A status's reason phrase: Node's, or tus's for the one it adds (460). */
export function statusTitle(status: number): string {
  return STATUS_CODES[status] ?? (status === 460 ? 'Checksum Mismatch' : 'Error');
}

/** A channel path's 409: a name an older release stored in two look-alike spellings (docs/api.md, "Names: one spelling, nothing hidden"). */
const NAME_AMBIGUOUS_EXAMPLE: ProblemExample = {
  code: 'NAME_AMBIGUOUS',
  detail:
    '"docs/café.txt" names 2 files that look the same, stored by an older release under different spellings: docs/cafe\\u0301.txt (ETag "66e0f7e0aaf6f5e71bf5b4a92a25e0b0c0ae1a4e84de3709f5b35143e22c699e") and docs/caf\\u00e9.txt (ETag "bb647c008309d51ec65885d271f94b9a78c1de49266fde3e60a08f3a74613980"). Send If-Match with the ETag of the one you mean, or delete one of them (DELETE with its If-Match)',
  lookalikes: [
    {
      spelling: 'docs/cafe\\u0301.txt',
      folder: 'docs',
      filename: 'cafe\u0301.txt',
      etag: '"66e0f7e0aaf6f5e71bf5b4a92a25e0b0c0ae1a4e84de3709f5b35143e22c699e"',
      size: 10,
      updatedAt: '2026-11-26T13:13:01.173Z',
    },
    {
      spelling: 'docs/caf\\u00e9.txt',
      folder: 'docs',
      filename: 'caf\u00e9.txt',
      etag: '"bb647c008309d51ec65885d271f94b9a78c1de49266fde3e60a08f3a74613980"',
      size: 12,
      updatedAt: '2026-11-26T13:13:01.145Z',
    },
  ],
};

/** A locked backup's refusal (docs/backup-locks.md): its delete, or the lifting of a compliance lock. */
const BACKUP_LOCKED_EXAMPLE: ProblemExample = {
  code: 'BACKUP_LOCKED',
  detail: 'Backup 20261126_123814 cannot be deleted: it is under a compliance lock until 2027-05-26T00:00:00.000Z',
  lockMode: 'compliance',
  lockUntil: '2027-05-26T00:00:00.000Z',
  legalHold: false,
};

/** The whole problem an example status answers, as the error handler writes it. */
function problemExample(status: ProblemStatus, example: ProblemExample = EXAMPLES[status]): Record<string, unknown> {
  const { code, detail, ...extra } = example;
  return {
    type: 'about:blank',
    title: statusTitle(status),
    status,
    detail,
    code,
    instance: '/api/…',
    requestId: '8e5b0dab-7229-4dfb-baca-3591ac9d871a',
    ...extra,
  };
}

/**
 * Response entries for error statuses, each an application/problem+json body: declared per media
 * type, so the document names the type the service really sends (Fastify serializes with it too).
 */
export function problemResponses<S extends ProblemStatus>(...statuses: S[]): Record<S, typeof problemRef> {
  return Object.fromEntries(statuses.map((status) => [status, problemResponse(status)])) as unknown as Record<S, typeof problemRef>;
}

/**
 * One status's entry, with its usual example or `example`. Typed as the bare reference, which the
 * type provider reads as an unknown payload, as it should: a route never sends a problem itself,
 * the error handler does.
 */
function problemResponse(status: ProblemStatus, example?: ProblemExample): typeof problemRef {
  const entry = {
    description: MEANINGS[status],
    content: { [PROBLEM_CONTENT_TYPE]: { schema: problemRef, example: problemExample(status, example) } },
  };
  return entry as unknown as typeof problemRef;
}

/** Every operation can answer these: a malformed request (no Host, a bad parameter), and an internal error. */
export const baseErrorResponses = problemResponses(400, 500);

/** What a wallet-authenticated operation adds: no or bad credentials, not allowed, the sign-in limit, an unavailable dependency. */
export const authenticatedErrorResponses = { ...baseErrorResponses, ...problemResponses(401, 403, 429, 503) };

/**
 * What every operation on a channel path adds: no such channel (folder, file…), and a channel name,
 * folder or file name that names two records an older release stored under look-alike spellings.
 */
export const channelErrorResponses = {
  ...authenticatedErrorResponses,
  ...problemResponses(404),
  409: problemResponse(409, NAME_AMBIGUOUS_EXAMPLE),
};

/** What the operations on a backup's existence and lock add: its lock refuses (BACKUP_LOCKED, LOCK_NOT_SHORTENABLE). */
export const backupLockErrorResponses = {
  ...channelErrorResponses,
  409: problemResponse(409, BACKUP_LOCKED_EXAMPLE),
};
