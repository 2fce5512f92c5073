import { HttpError } from './errors.ts';

/** One request of the API, before it is signed. */
export interface Call {
  method: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  body?: BodyInit;
  /** A stream can be read once: such a request is never sent again. */
  replayable?: boolean;
}

/** Sends a call signed in, and answers its response when ok; a refusal is thrown (ProblemError, HttpError). */
export type SignedSender = (call: Call) => Promise<Response>;

/** A call whose body is `value` as JSON. */
export function jsonCall(method: string, path: string, value: unknown, headers: Record<string, string> = {}): Call {
  return { method, path, headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(value) };
}

/** The header of a condition, none when it is not given. */
export function conditionHeader(name: string, tags: string | readonly string[] | undefined): Record<string, string> {
  if (tags === undefined) return {};
  return { [name]: typeof tags === 'string' ? tags : tags.join(', ') };
}

/**
 * Reads an answer whose body says nothing (a HEAD's, a 204's, a single byte) to its end rather than
 * cancelling it or leaving it unread: Chromium records an answer whose body was cancelled, or never
 * read, as a cancelled request (net::ERR_ABORTED in the network panel), even a HEAD's empty one.
 */
export async function readToEnd(response: Response): Promise<void> {
  await response.arrayBuffer();
}

export async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new HttpError(response.status, `${response.status}: the answer is not JSON`, text.slice(0, 1000));
  }
}

/**
 * A write's conditions on the live file: entity tags as the service sends them (`"<sha256>"`, the
 * ETag of a download or an upload), or `*`. Unmet: a ProblemError 412 PRECONDITION_FAILED, and
 * nothing changed.
 */
export interface IfMatch {
  /** Write only if the live file exists and has one of these ETags (`*`: exists at all). */
  ifMatch?: string | readonly string[];
}
