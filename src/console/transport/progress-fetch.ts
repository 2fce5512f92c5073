/**
 * Upload progress for the client library. fetch reports no upload progress, so a request whose
 * body is a Blob registered here is sent with XMLHttpRequest instead and answered as a Response;
 * every other request goes to fetch unchanged. The client stays one code path for all requests.
 */
type ProgressListener = (sent: number, total: number) => void;

const listeners = new WeakMap<Blob, ProgressListener>();

/** Reports the upload of `blob` to `listener` until the returned function is called. */
export function trackUpload(blob: Blob, listener: ProgressListener): () => void {
  listeners.set(blob, listener);
  return () => listeners.delete(blob);
}

export const progressFetch: typeof fetch = (input, init) => {
  const body = init?.body;
  const listener = body instanceof Blob ? listeners.get(body) : undefined;
  if (!listener || !(body instanceof Blob)) return globalThis.fetch(input, init);
  return new Promise<Response>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(init?.method ?? 'GET', input instanceof Request ? input.url : String(input));
    new Headers(init?.headers).forEach((value, name) => {
      xhr.setRequestHeader(name, value);
    });
    xhr.responseType = 'blob';
    xhr.upload.onprogress = (event) => listener(event.loaded, event.lengthComputable ? event.total : body.size);
    xhr.onload = () => {
      // These statuses must have no body in a Response.
      const empty = xhr.status === 204 || xhr.status === 205 || xhr.status === 304;
      resolve(
        new Response(empty ? null : (xhr.response as Blob), {
          status: xhr.status,
          statusText: xhr.statusText,
          headers: headersOf(xhr.getAllResponseHeaders()),
        }),
      );
    };
    xhr.onerror = () => reject(new TypeError('The upload failed: the connection to the service was lost'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    init?.signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(body);
  });
};

function headersOf(raw: string): Headers {
  const headers = new Headers();
  for (const line of raw.trim().split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}
