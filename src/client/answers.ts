import { HttpError } from './errors.ts';

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
