import http from 'node:http';

export interface HttpResponse {
  /** The URL requested. */
  url: string;
  status: number;
  /** Lowercase names; repeated headers joined by ", " as Node does. */
  headers: http.IncomingHttpHeaders;
  /** Name/value pairs exactly as they arrived on the wire, one per header line. */
  rawHeaders: [string, string][];
  body: string;
  /** The body exactly as received, for binary downloads. */
  bytes: Buffer;
  json(): any;
}

/** A plain HTTP/1.1 request that keeps the raw header lines (fetch would merge them). */
export function request(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: object; body?: string | Buffer } = {},
): Promise<HttpResponse> {
  const url = new URL(path, baseUrl);
  const headers = Object.fromEntries(Object.entries(options.headers ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const body = bytes.toString('utf8');
        const rawHeaders: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) rawHeaders.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        resolve({ url: url.href, status: res.statusCode!, headers: res.headers, rawHeaders, body, bytes, json: () => JSON.parse(body) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export function headerLines(response: HttpResponse, name: string): string[] {
  return response.rawHeaders.filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v);
}
