import { errorOf, HttpError, ProblemError, type SignedHeaders } from '../../client/index.ts';
import { progressFetch, trackUpload } from './progress-fetch.ts';

/**
 * Large files go through the service's tus 1.0.0 uploads (POST /api/channels/{channel}/uploads,
 * then HEAD and PATCH on the upload's URL): a dropped connection costs only what was in flight, and
 * a reload costs nothing once the same file is given again. A small tus client of the console's own
 * rather than tus-js-client: this is about 2 KB of the page's script where tus-js-client's browser
 * build is 16 KB gzipped, and it reuses the console's sign-in headers and its upload progress
 * (progress-fetch.ts), and reads the service's problems as every other request does.
 */

/**
 * Files this size and larger are uploaded resumably; smaller ones keep the one plain PUT. Below it
 * a file is sent in seconds on a slow line and a retry of all of it costs little, while each
 * resumable upload costs the service a record, a staging area and one of UPLOADS_MAX_PER_ADMIN.
 */
export const RESUMABLE_THRESHOLD = 8 * 1024 * 1024;
/**
 * The bytes of one PATCH. Smaller requests bound what a dropped connection (or a proxy's body
 * limit) can cost and keep the sign-in headers fresh; larger ones spend fewer round trips.
 */
const CHUNK_BYTES = 8 * 1024 * 1024;
/** Waits before each attempt after a dropped connection or a passing refusal; spent only while nothing moves. */
const RETRY_DELAYS_MS = [1000, 3000, 5000, 10_000, 20_000, 30_000];
/** Where each upload's URL is kept between page loads (localStorage), by channel, folder, name, size and lastModified. */
const STORAGE_PREFIX = 'wallet-admin.upload:';
/** The service forgets an upload UPLOAD_EXPIRY (24 h by default) after its last PATCH: entries older than this are dropped unread. */
const STORED_FOR_MS = 7 * 24 * 3600 * 1000;

const TUS = { 'Tus-Resumable': '1.0.0' };

export interface ResumableUploadOptions {
  channel: string;
  folder: string;
  file: File;
  /** The signed-in headers (the client's `signIn()`: the message in use, renewed when due). */
  headers(): Promise<SignedHeaders>;
  /** Bytes the service holds or that are on their way, of `file.size`. */
  onProgress(sent: number): void;
  /** An upload of an earlier page (or attempt) goes on from `offset` bytes. */
  onResume?(offset: number): void;
  /** The connection dropped (or the service was unavailable): another attempt in `delayMs`. */
  onRetry?(delayMs: number): void;
}

export interface ResumableUploadResult {
  /** The file's ETag, `"<sha256>"`. */
  etag: string;
}

/** Whether a file goes through the resumable upload. */
export const isResumable = (file: Blob): boolean => file.size >= RESUMABLE_THRESHOLD;

/**
 * Uploads `file` resumably to folder/name in the channel: finds the upload stored for the same
 * file, or creates one, and sends what the service lacks, retrying after dropped connections. A
 * refusal is thrown as the service's ProblemError.
 */
export async function uploadResumable(options: ResumableUploadOptions): Promise<ResumableUploadResult> {
  const key = storageKey(options);
  let restarted = false;
  for (;;) {
    let url = storedUrl(key);
    let standing: Standing | undefined;
    if (url !== undefined) {
      standing = await retried(options, () => status(options, url!));
      if (standing === 'gone') {
        forget(key);
        url = undefined;
      } else {
        remember(key, url);
        if (standing.offset > 0) options.onResume?.(standing.offset);
      }
    }
    if (url === undefined) {
      url = await retried(options, () => create(options));
      remember(key, url);
      standing = { offset: 0, etag: null };
    }
    const uploadUrl = url;
    try {
      const etag = await send(options, uploadUrl, standing as Exclude<Standing, 'gone'>);
      forget(key);
      return { etag };
    } catch (error) {
      // The service forgot the upload midway (it expired, or was terminated): once, it starts again.
      if (!(error instanceof ProblemError && error.code === 'UPLOAD_NOT_FOUND')) throw error;
      forget(key);
      if (restarted) throw error;
      restarted = true;
    }
  }
}

type Standing = { offset: number; etag: string | null } | 'gone';

/** Sends from where the upload stands to its end; answers the file's ETag. */
async function send(options: ResumableUploadOptions, url: string, from: { offset: number; etag: string | null }): Promise<string> {
  const { file } = options;
  let { offset, etag } = from;
  let attempt = 0;
  options.onProgress(offset);
  while (offset < file.size) {
    try {
      ({ offset, etag } = await patch(options, url, offset));
      attempt = 0;
    } catch (error) {
      const delay = retryDelay(error, attempt);
      if (delay === undefined) throw error;
      if (!isOffsetMismatch(error)) {
        attempt++;
        options.onRetry?.(delay);
        await sleep(delay);
      }
      // Where the service stands now: what the dropped request carried is kept there.
      const now = await retried(options, () => status(options, url));
      if (now === 'gone') throw new ProblemError(goneProblem(), '');
      if (now.offset > offset) attempt = 0;
      ({ offset, etag } = now);
      options.onProgress(offset);
    }
  }
  if (etag !== null) return etag;
  // Every byte is there and the answer that completed the upload was lost: HEAD says how it ended.
  const end = await retried(options, () => status(options, url));
  if (end === 'gone') throw new ProblemError(goneProblem(), '');
  if (end.etag === null) throw new HttpError(200, 'The service has every byte of the upload but answered no ETag for the file', '');
  return end.etag;
}

/** One PATCH of up to CHUNK_BYTES from `offset`, its progress reported; answers where the upload stands after it. */
async function patch(options: ResumableUploadOptions, url: string, offset: number): Promise<{ offset: number; etag: string | null }> {
  const chunk = options.file.slice(offset, offset + CHUNK_BYTES);
  const stop = trackUpload(chunk, (loaded) => options.onProgress(offset + loaded));
  try {
    const response = await progressFetch(url, {
      method: 'PATCH',
      headers: {
        ...TUS,
        ...(await options.headers()),
        'Content-Type': 'application/offset+octet-stream',
        'Upload-Offset': String(offset),
      },
      body: chunk,
    });
    if (!response.ok) throw await errorOf(response);
    await response.arrayBuffer();
    return { offset: offsetOf(response), etag: response.headers.get('etag') };
  } finally {
    stop();
  }
}

/** POST: a new upload of the file to folder/name; answers its URL. */
async function create(options: ResumableUploadOptions): Promise<string> {
  const { file } = options;
  const metadata = [
    `folder ${base64(options.folder.normalize('NFC'))}`,
    `filename ${base64(file.name.normalize('NFC'))}`,
    ...(file.type === '' ? [] : [`contentType ${base64(file.type)}`]),
  ].join(',');
  const response = await progressFetch(`/api/channels/${encodeURIComponent(options.channel)}/uploads`, {
    method: 'POST',
    headers: { ...TUS, ...(await options.headers()), 'Upload-Length': String(file.size), 'Upload-Metadata': metadata },
  });
  if (!response.ok) throw await errorOf(response);
  await response.arrayBuffer();
  const location = response.headers.get('location');
  if (location === null) throw new HttpError(response.status, 'The service created the upload but named no Location for it', '');
  return new URL(location, window.location.origin).pathname;
}

/**
 * HEAD: where the upload stands. A HEAD's refusal has no problem body to read: 404 and 410 mean
 * the service forgot it, and any other 4xx that it can go on no more (its completion was refused,
 * or the admin may not write here): 'gone' either way, and a new upload says why, if anything. A
 * 429 or 5xx is thrown, to be tried again.
 */
async function status(options: ResumableUploadOptions, url: string): Promise<Standing> {
  const response = await progressFetch(url, { method: 'HEAD', headers: { ...TUS, ...(await options.headers()) } });
  await response.arrayBuffer();
  if (response.ok) return { offset: offsetOf(response), etag: response.headers.get('etag') };
  if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) return 'gone';
  throw new HttpError(response.status, `${response.status}: the upload's status was not answered`, '');
}

/** Runs `request`, trying again after each delay while it fails in a way worth retrying. */
async function retried<T>(options: ResumableUploadOptions, request: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      const delay = retryDelay(error, attempt);
      if (delay === undefined) throw error;
      options.onRetry?.(delay);
      await sleep(delay);
    }
  }
}

/**
 * How long to wait before trying again after `error`; undefined: not worth it (a refusal that
 * another attempt would get too). A lost connection, a timeout, a busy or failing service, and an
 * offset the service does not stand at (asked at once) are retried.
 */
function retryDelay(error: unknown, attempt: number): number | undefined {
  if (isOffsetMismatch(error)) return 0;
  const passing =
    error instanceof TypeError || // fetch and progressFetch: the connection was lost
    (error instanceof HttpError && (error.status === 408 || error.status === 423 || error.status === 429 || retryable5xx(error)));
  return passing ? RETRY_DELAYS_MS[attempt] : undefined;
}

const retryable5xx = (error: HttpError) => error.status >= 500 && error.status !== 501 && error.status !== 507;
const isOffsetMismatch = (error: unknown) => error instanceof ProblemError && error.code === 'UPLOAD_OFFSET_MISMATCH';

const goneProblem = () => ({
  type: 'about:blank',
  title: 'Not Found',
  status: 404,
  code: 'UPLOAD_NOT_FOUND',
  detail: 'The service no longer has this upload (it expired or was terminated)',
});

function offsetOf(response: Response): number {
  const offset = Number(response.headers.get('upload-offset'));
  if (!Number.isSafeInteger(offset) || offset < 0) throw new HttpError(response.status, 'The service answered no Upload-Offset', '');
  return offset;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function base64(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

// ---------------------------------------------------------------------------------------------
// The upload URLs kept between page loads

const storageKey = ({ channel, folder, file }: ResumableUploadOptions) =>
  STORAGE_PREFIX + JSON.stringify([channel, folder.normalize('NFC'), file.name.normalize('NFC'), file.size, file.lastModified]);

/** localStorage, or nothing where the browser refuses it (a private window's policy): then nothing survives a reload. */
function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

function storedUrl(key: string): string | undefined {
  try {
    const entry = JSON.parse(storage()?.getItem(key) ?? 'null') as { url?: unknown; at?: unknown } | null;
    return typeof entry?.url === 'string' && typeof entry.at === 'number' && entry.at > Date.now() - STORED_FOR_MS ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

function remember(key: string, url: string): void {
  const store = storage();
  try {
    // The stale entries of uploads never finished go first.
    for (let i = (store?.length ?? 0) - 1; i >= 0; i--) {
      const other = store?.key(i);
      if (other?.startsWith(STORAGE_PREFIX) && storedUrl(other) === undefined) store?.removeItem(other);
    }
    store?.setItem(key, JSON.stringify({ url, at: Date.now() }));
  } catch {
    // A full or refused storage: the upload still runs, only a reload cannot resume it.
  }
}

function forget(key: string): void {
  try {
    storage()?.removeItem(key);
  } catch {
    // Nothing kept, nothing to remove.
  }
}
