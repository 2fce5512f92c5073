import { administrationCalls } from './administration.ts';
import { approvalCalls } from './approvals.ts';
import { pathSegment } from './encoding.ts';
import { errorOf, HeldForApproval, HttpError, ProblemError } from './errors.ts';
import { offsiteCalls } from './offsite.ts';
import { type Call, conditionHeader, type IfMatch, json, jsonCall, readToEnd } from './requests.ts';
import { type SignedHeaders, SignInSession } from './sign-in.ts';
import type { WalletSigner } from './signers.ts';
import type {
  AuditEvent,
  AuditQuery,
  AuthTestResponse,
  Backup,
  BackupLockChange,
  ChangesQuery,
  ChannelInfo,
  ChannelQuota,
  ChannelUsage,
  DeletedFile,
  FileChange,
  FileInfo,
  FileVersion,
  FolderInfo,
  NonceResponse,
  Page,
  PageRequest,
  Proposal,
  QuotaLimits,
  ScopeRestoreResult,
  TenantUsage,
} from './types.ts';
import { webhookCalls } from './webhooks.ts';

export interface ClientOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8080` (a path is ignored: the API lives at /api). */
  baseUrl: string;
  signer: WalletSigner;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** How long a signed message is valid: a working day (8 hours) unless set. */
  lifetimeSeconds?: number;
  /** The message's statement line, shown by the wallet. */
  statement?: string;
  /**
   * A message this client signed before (`signedIn()` of an earlier run: a CLI keeps it between
   * commands), presented instead of signing anew until shortly before it expires.
   */
  resume?: SignedIn;
}

/**
 * A file's bytes: a page's File or Blob, bytes, text, or a stream, sent as it is read and so never
 * retried (browsers stream request bodies over HTTP/2 only: a page passes the File).
 */
export type UploadBody = Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array> | string;

export interface UploadResult {
  /** True when the file did not exist (201), false when it replaced one (200). */
  created: boolean;
  file: FileInfo;
  /** The strong ETag of the content written (`"<sha256>"`): the next write's `ifMatch`. */
  etag: string;
}

/** The conditions of a write (see IfMatch in requests.ts), and of an upload. */
export type { IfMatch };

export interface UploadConditions extends IfMatch {
  /** `*`: create only (no live file may exist); tags: write only if the live file has none of them. */
  ifNoneMatch?: string | readonly string[];
}

/** A byte range of a download, `end` inclusive; without `end`, to the end of the file. */
export interface ByteRange {
  start: number;
  end?: number;
}

/**
 * Where a restore takes the file from; by default the newest backup holding it. `at`: the file as
 * it was at that instant (a Date, or RFC 3339 text), as far as retention still holds it.
 */
export type RestoreSource = { backupTimestamp: string } | { versionId: string } | { at: Date | string } | Record<string, never>;

export interface RestoreResult {
  /** The restored file's URL (a signed link when the service signs links). */
  url: string;
  /** The version keeping what the restore replaced (restore it to undo); null when nothing was replaced. */
  keptVersionId: string | null;
}

/**
 * Options of a folder or channel restore: the backup (or the instant `at`, a Date or RFC 3339
 * text: exactly one of them), and whether to only plan (`dryRun`) or also delete what it lacks.
 * `ifMatch`: the `etag` of a dry run's answer, to restore exactly the plan it showed; once the
 * scope has changed, a ProblemError 412 PRECONDITION_FAILED, and nothing was restored.
 */
export type ScopeRestoreOptions = ({ backupTimestamp: string; at?: undefined } | { at: Date | string; backupTimestamp?: undefined }) & {
  dryRun?: boolean;
  delete?: boolean;
  ifMatch?: string | readonly string[];
};

/**
 * Which state an archive holds: the live files (neither given), a backup, or the state at an
 * instant `at` (a Date or RFC 3339 text): at most one of the two.
 */
export type ArchiveOptions = { backupTimestamp?: string; at?: undefined } | { at?: Date | string; backupTimestamp?: undefined };

/** A name as the service stores it (NFC); it finds what an older release stored in another spelling too. */
const nameForm = (name: string): string => name.normalize('NFC');

/** An instant as the service reads it (RFC 3339). */
const instantText = (at: Date | string | undefined): string | undefined => (at instanceof Date ? at.toISOString() : at);

/** The message the client presents and when it expires. */
export interface SignedIn {
  headers: SignedHeaders;
  expiresAt: Date;
}

const WORKING_DAY_SECONDS = 8 * 3600;
/** Refusals that a fresh signature cures; any other 401 would be refused again. */
const RESIGN_CODES = new Set(['AUTH_MESSAGE_EXPIRED', 'AUTH_MESSAGE_REVOKED']);

export type WalletAdminClient = ReturnType<typeof createClient>;

/**
 * One function per endpoint of the API. It signs in on first use (a nonce from the service, one
 * wallet signature) and presents that message until shortly before it expires; a request
 * refused because the message expired or was logged out is signed anew and sent once more.
 * Errors: ProblemError for the service's problems, HttpError for any other answer not expected.
 */
export function createClient(options: ClientOptions) {
  const base = new URL(options.baseUrl);
  // A page's fetch must be called on the window: `options.fetch(...)` of a stored reference throws there.
  const send: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const lifetimeSeconds = options.lifetimeSeconds ?? WORKING_DAY_SECONDS;
  if (!Number.isInteger(lifetimeSeconds) || lifetimeSeconds < 1) throw new TypeError('lifetimeSeconds must be a positive whole number');

  const urlOf = (path: string, query: Call['query'] = {}): string => {
    const url = new URL(path, base.origin);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url.href;
  };

  const anonymous = async (call: Call): Promise<Response> => {
    const response = await send(urlOf(call.path, call.query), { method: call.method, headers: call.headers });
    if (!response.ok) throw await errorOf(response);
    return response;
  };

  const nonce = async (): Promise<NonceResponse> => json<NonceResponse>(await anonymous({ method: 'GET', path: '/api/auth/nonce' }));

  const session = new SignInSession({
    signer: options.signer,
    baseUrl: base,
    lifetimeSeconds,
    statement: options.statement ?? 'Sign in to wallet-admin.',
    nonce: async () => (await nonce()).nonce,
    now: () => Date.now(),
    ...(options.resume ? { resume: { headers: options.resume.headers, expiresAt: options.resume.expiresAt.getTime() } } : {}),
  });

  const attempt = async (call: Call, headers: SignedHeaders): Promise<Response> => {
    const init: RequestInit & { duplex?: 'half' } = { method: call.method, headers: { ...call.headers, ...headers }, body: call.body };
    // fetch sends a stream body only when told it will not read the answer before the body ends.
    if (call.body instanceof ReadableStream) init.duplex = 'half';
    return send(urlOf(call.path, call.query), init);
  };

  const signed = async (call: Call): Promise<Response> => {
    const headers = await session.headers();
    let response = await attempt(call, headers);
    if (response.status === 401 && call.replayable !== false) {
      const error = await errorOf(response);
      if (!(error instanceof ProblemError) || !RESIGN_CODES.has(error.code)) throw error;
      await session.discard(headers);
      response = await attempt(call, await session.headers());
    }
    if (!response.ok) throw await errorOf(response);
    // Every held operation is asked by a signed-in admin: its 202 is a proposal, never the operation's answer.
    if (response.status === 202) throw new HeldForApproval(await json<Proposal>(response));
    return response;
  };

  // Names go in NFC, the form the service stores them in; `.` and `..` never go (pathSegment).
  const filePath = (channelRef: string, folder: string, filename: string) =>
    `${folderPath(channelRef, folder)}/files/${pathSegment(filename)}`;
  const folderPath = (channelRef: string, folder: string) => `${channelPath(channelRef)}/folders/${pathSegment(folder)}`;
  const channelPath = (channelRef: string) => `/api/channels/${pathSegment(channelRef)}`;
  const backupPath = (channelRef: string, timestamp: string) => `${channelPath(channelRef)}/backups/${pathSegment(timestamp)}`;
  const pageQuery = (page: PageRequest = {}) => ({ limit: page.limit, cursor: page.cursor });

  return {
    /** The signed-in principal and the headers the service received: GET /api/auth/test. */
    authTest: async (): Promise<AuthTestResponse> => json(await signed({ method: 'GET', path: '/api/auth/test' })),

    /** A fresh server nonce (the client fetches its own when it signs in). */
    nonce,

    /** The headers the client presents, signing in first if needed (for a link or another tool). */
    signIn: (): Promise<SignedHeaders> => session.headers(),

    /** The message in use and when it expires, without signing: undefined when not signed in (or it has expired). */
    async signedIn(): Promise<SignedIn | undefined> {
      const signed = await session.signedIn();
      return signed && { headers: signed.headers, expiresAt: new Date(signed.expiresAt) };
    },

    /**
     * Revokes the message in use on every instance; the next call signs in again. Nothing to do when
     * not signed in. `{ all: true }`: ends every message this admin has signed, in every browser and
     * tool (log out everywhere), signing in first when needed.
     */
    async logout(options: { all?: boolean } = {}): Promise<void> {
      const headers = options.all ? await session.headers() : await session.peek();
      if (!headers) return;
      await session.discard(headers);
      const path = options.all ? '/api/auth/logout?all=true' : '/api/auth/logout';
      const response = await attempt({ method: 'POST', path }, headers);
      // An expired or already revoked message is as signed out as a revoked one; but logging out
      // everywhere is a change the service must have made.
      if (!response.ok && (options.all || response.status !== 401)) throw await errorOf(response);
      await readToEnd(response);
    },

    async upload(
      channelRef: string,
      folder: string,
      filename: string,
      body: UploadBody,
      contentType?: string,
      conditions: UploadConditions = {},
    ): Promise<UploadResult> {
      const type = contentType ?? (body instanceof Blob && body.type !== '' ? body.type : 'application/octet-stream');
      const response = await signed({
        method: 'PUT',
        path: filePath(channelRef, folder, filename),
        headers: {
          'Content-Type': type,
          ...conditionHeader('If-Match', conditions.ifMatch),
          ...conditionHeader('If-None-Match', conditions.ifNoneMatch),
        },
        body: body as BodyInit,
        replayable: !(body instanceof ReadableStream),
      });
      const file = await json<FileInfo>(response);
      return { created: response.status === 201, file, etag: response.headers.get('etag') ?? `"${file.sha256}"` };
    },

    /** The file's bytes as a fetch Response (200, or 206 for a range): read it with blob(), arrayBuffer(), text() or body. */
    download: (channelRef: string, folder: string, filename: string, options: { range?: ByteRange } = {}): Promise<Response> =>
      signed({
        method: 'GET',
        path: filePath(channelRef, folder, filename),
        headers: options.range ? { Range: `bytes=${options.range.start}-${options.range.end ?? ''}` } : {},
      }),

    /**
     * The live file's metadata without its bytes (HEAD of the download): undefined when no live file
     * has that name (never uploaded, or deleted; a deleted file's versions are still listed).
     */
    async stat(channelRef: string, folder: string, filename: string): Promise<FileInfo | undefined> {
      const path = filePath(channelRef, folder, filename);
      const head = async () => {
        const answer = await attempt({ method: 'HEAD', path }, await session.headers());
        await readToEnd(answer);
        return answer;
      };
      let response = await head();
      if (response.status !== 404 && !response.ok) {
        // A HEAD answer carries no problem document: a one-byte GET gets the refusal in full, and
        // re-signs when the message expired; should it pass, the HEAD is asked once more.
        await readToEnd(await signed({ method: 'GET', path, headers: { Range: 'bytes=0-0' } }));
        response = await head();
      }
      if (response.status === 404) return undefined;
      if (!response.ok) throw new HttpError(response.status, `${response.status}: the file's metadata was refused`, '');
      const etag = response.headers.get('etag') ?? '';
      return {
        folder: nameForm(folder),
        filename: nameForm(filename),
        size: Number(response.headers.get('content-length') ?? 0),
        sha256: etag.replace(/^W\//, '').replaceAll('"', ''),
        contentType: response.headers.get('content-type') ?? 'application/octet-stream',
        updatedAt: new Date(response.headers.get('last-modified') ?? 0).toISOString(),
      };
    },

    /** The channels the signed-in admin is linked to, by name. */
    listChannels: async (page?: PageRequest): Promise<Page<ChannelInfo>> =>
      json(await signed({ method: 'GET', path: '/api/channels', query: pageQuery(page) })),

    /** The channel's folders that hold live files, by name, with how many. */
    listFolders: async (channelRef: string, page?: PageRequest): Promise<Page<FolderInfo>> =>
      json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/folders`, query: pageQuery(page) })),

    listFiles: async (channelRef: string, folder: string, page?: PageRequest): Promise<Page<FileInfo>> =>
      json(await signed({ method: 'GET', path: `${folderPath(channelRef, folder)}/files`, query: pageQuery(page) })),

    /** The file stays restorable as a version. */
    async deleteFile(channelRef: string, folder: string, filename: string, conditions: IfMatch = {}): Promise<void> {
      const response = await signed({
        method: 'DELETE',
        path: filePath(channelRef, folder, filename),
        headers: conditionHeader('If-Match', conditions.ifMatch),
      });
      await readToEnd(response);
    },

    /** Every stored version of the file, newest first. */
    versions: async (channelRef: string, folder: string, filename: string, page?: PageRequest): Promise<Page<FileVersion>> =>
      json(await signed({ method: 'GET', path: `${filePath(channelRef, folder, filename)}/versions`, query: pageQuery(page) })),

    /** Files deleted from the folder that can still be restored, by filename: `restore(…, { versionId })` brings one back. */
    listDeleted: async (channelRef: string, folder: string, page?: PageRequest): Promise<Page<DeletedFile>> =>
      json(await signed({ method: 'GET', path: `${folderPath(channelRef, folder)}/deleted`, query: pageQuery(page) })),

    /**
     * Restores the file and answers its URL (signed when the service signs links) and the version
     * that keeps the replaced bytes: `restore(…, { versionId: keptVersionId })` undoes it.
     */
    async restore(
      channelRef: string,
      folder: string,
      filename: string,
      source: RestoreSource = {},
      conditions: IfMatch = {},
    ): Promise<RestoreResult> {
      const response = await signed({
        method: 'POST',
        path: `${filePath(channelRef, folder, filename)}/restore`,
        query: 'at' in source ? { at: instantText(source.at) } : (source as Record<string, string>),
        headers: conditionHeader('If-Match', conditions.ifMatch),
      });
      const keptVersionId = response.headers.get('X-Kept-Version-Id');
      return { url: (await response.text()).trim(), keptVersionId: keptVersionId === null || keptVersionId === '' ? null : keptVersionId };
    },

    /**
     * Brings a folder back to a backup (`dryRun`: the plan only). Answers the changes and the
     * safety backup taken first: `restoreChannel(…, { backupTimestamp: safetyBackup, delete: true })` undoes it.
     */
    restoreFolder: async (channelRef: string, folder: string, options: ScopeRestoreOptions): Promise<ScopeRestoreResult> =>
      scopeRestoreResult(await signed(scopeRestoreCall(`${folderPath(channelRef, folder)}/restore`, options))),

    /** Brings every folder of the channel back to a backup, as restoreFolder does for one. */
    restoreChannel: async (channelRef: string, options: ScopeRestoreOptions): Promise<ScopeRestoreResult> =>
      scopeRestoreResult(await signed(scopeRestoreCall(`${channelPath(channelRef)}/restore`, options))),

    /**
     * A ZIP of one folder's files (docs/archives.md), live or at a backup or an instant, as a fetch
     * Response streaming it: read `body` to save it as it arrives. At most ARCHIVE_MAX_PER_ADMIN of
     * an admin's stream at once (then ProblemError 429 RATE_LIMITED).
     */
    archiveFolder: (channelRef: string, folder: string, options: ArchiveOptions = {}): Promise<Response> =>
      signed(archiveCall(`${folderPath(channelRef, folder)}/archive`, options)),

    /** The whole channel as one ZIP, as archiveFolder does for a folder. */
    archiveChannel: (channelRef: string, options: ArchiveOptions = {}): Promise<Response> =>
      signed(archiveCall(`${channelPath(channelRef)}/archive`, options)),

    /** The tenant's usage against its quota, and each reachable channel's (docs/quotas.md). */
    usage: async (): Promise<TenantUsage> => json(await signed({ method: 'GET', path: '/api/usage' })),

    /** The channel's usage against its quota (files:read). */
    channelUsage: async (channelRef: string): Promise<ChannelUsage> =>
      json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/usage` })),

    /** The channel's quota, with its tenant's. */
    channelQuota: async (channelRef: string): Promise<ChannelQuota> =>
      json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/quota` })),

    /** Sets the channel's whole quota (channels:manage), each limit at most the tenant's; null: none. */
    setChannelQuota: async (channelRef: string, quota: QuotaLimits): Promise<ChannelQuota> =>
      json(await signed(jsonCall('PUT', `${channelPath(channelRef)}/quota`, quota))),

    /** Backs the channel up now: 409 BACKUP_EXISTS when it already was within this second. */
    createBackup: async (channelRef: string): Promise<Backup> =>
      json(await signed({ method: 'POST', path: `${channelPath(channelRef)}/backups` })),

    listBackups: async (channelRef: string, page?: PageRequest): Promise<Page<Backup>> =>
      json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/backups`, query: pageQuery(page) })),

    /**
     * Deletes the backup (the named instant; its versions fall to retention). A ProblemError 409
     * BACKUP_LOCKED while it is under legal hold or a lock before its date (docs/backup-locks.md).
     */
    deleteBackup: async (channelRef: string, backupTimestamp: string): Promise<void> =>
      readToEnd(await signed({ method: 'DELETE', path: backupPath(channelRef, backupTimestamp) })),

    /**
     * Locks the backup (`mode` and `until`, a Date or RFC 3339), puts it under legal hold or
     * releases it (`legalHold`), or both; answers the backup with its lock. A compliance lock is
     * only ever extended; shortening a governance lock or releasing a hold needs an owner.
     */
    lockBackup: async (
      channelRef: string,
      backupTimestamp: string,
      change: Omit<BackupLockChange, 'until'> & { until?: Date | string },
    ): Promise<Backup> =>
      json(
        await signed(jsonCall('PUT', `${backupPath(channelRef, backupTimestamp)}/lock`, { ...change, until: instantText(change.until) })),
      ),

    /** Lifts the backup's retention lock (a governance lock before its date: an owner only; a compliance lock: nobody). */
    unlockBackup: async (channelRef: string, backupTimestamp: string): Promise<Backup> =>
      json(await signed({ method: 'DELETE', path: `${backupPath(channelRef, backupTimestamp)}/lock` })),

    /**
     * What changed from backup `from` (or the instant `fromAt`) to `to` (or `toAt`; default: now),
     * by folder and filename. Pass the same query with a page's cursor.
     */
    changes: async (channelRef: string, query: ChangesQuery): Promise<Page<FileChange>> => {
      const { from, fromAt, to, toAt, folder } = query;
      const states = { from, fromAt: instantText(fromAt), to, toAt: instantText(toAt), folder: folder && nameForm(folder) };
      return json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/changes`, query: { ...pageQuery(query), ...states } }));
    },

    /** Newest first; the filters (all optional) combine with AND. Pass the same filters with a page's cursor. */
    listAudit: async (channelRef: string, query: AuditQuery = {}): Promise<Page<AuditEvent>> => {
      const { action, adminId, folder, filename, result, operationId } = query;
      const filters = {
        action,
        adminId,
        folder: folder && nameForm(folder),
        filename: filename && nameForm(filename),
        result,
        operationId,
      };
      return json(await signed({ method: 'GET', path: `${channelPath(channelRef)}/audit`, query: { ...pageQuery(query), ...filters } }));
    },

    ...administrationCalls(signed),
    ...approvalCalls(signed),
    ...webhookCalls(signed),
    ...offsiteCalls(signed),
  };
}

/** Only the options given go in the query: the service refuses unknown ones and takes false by default. */
function scopeRestoreCall(path: string, { backupTimestamp, at, dryRun, delete: withDeletes, ifMatch }: ScopeRestoreOptions): Call {
  return {
    method: 'POST',
    path,
    query: {
      backupTimestamp,
      at: instantText(at),
      dryRun: dryRun === undefined ? undefined : String(dryRun),
      delete: withDeletes === undefined ? undefined : String(withDeletes),
    },
    headers: conditionHeader('If-Match', ifMatch),
  };
}

function archiveCall(path: string, { backupTimestamp, at }: ArchiveOptions): Call {
  return { method: 'GET', path, query: { backupTimestamp, at: instantText(at) } };
}

/** The plan and, from its header, the plan's ETag. */
async function scopeRestoreResult(response: Response): Promise<ScopeRestoreResult> {
  const etag = response.headers.get('etag') ?? '';
  return { ...(await json<Omit<ScopeRestoreResult, 'etag'>>(response)), etag };
}
