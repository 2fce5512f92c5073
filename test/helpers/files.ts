import { createHash } from 'node:crypto';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import type { Config } from '../../src/config/config.ts';
import { type HttpResponse, request } from './http.ts';

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The file API of one channel, as one signed-in admin sees it. */
export class FilesClient {
  constructor(
    readonly baseUrl: string,
    readonly channelRef: string,
    readonly auth: Record<string, string>,
  ) {}

  filePath(folder: string, filename: string): string {
    return `/api/channels/${encodeURIComponent(this.channelRef)}/folders/${encodeURIComponent(folder)}/files/${encodeURIComponent(filename)}`;
  }

  put(
    folder: string,
    filename: string,
    body: string | Buffer,
    contentType = 'application/octet-stream',
    headers: object = {},
  ): Promise<HttpResponse> {
    return request(this.baseUrl, this.filePath(folder, filename), {
      method: 'PUT',
      headers: { ...this.auth, 'Content-Type': contentType, ...headers },
      body,
    });
  }

  get(folder: string, filename: string, headers: object = {}): Promise<HttpResponse> {
    return request(this.baseUrl, this.filePath(folder, filename), { headers: { ...this.auth, ...headers } });
  }

  delete(folder: string, filename: string, headers: object = {}): Promise<HttpResponse> {
    return request(this.baseUrl, this.filePath(folder, filename), { method: 'DELETE', headers: { ...this.auth, ...headers } });
  }

  list(folder: string, query = ''): Promise<HttpResponse> {
    return request(
      this.baseUrl,
      `/api/channels/${encodeURIComponent(this.channelRef)}/folders/${encodeURIComponent(folder)}/files${query}`,
      { headers: this.auth },
    );
  }

  versions(folder: string, filename: string, query = ''): Promise<HttpResponse> {
    return request(this.baseUrl, `${this.filePath(folder, filename)}/versions${query}`, { headers: this.auth });
  }

  backup(): Promise<HttpResponse> {
    return request(this.baseUrl, `/api/channels/${encodeURIComponent(this.channelRef)}/backups`, {
      method: 'POST',
      headers: { ...this.auth, 'Content-Type': 'application/json' },
    });
  }

  backups(query = ''): Promise<HttpResponse> {
    return request(this.baseUrl, `/api/channels/${encodeURIComponent(this.channelRef)}/backups${query}`, { headers: this.auth });
  }

  audit(query = ''): Promise<HttpResponse> {
    return request(this.baseUrl, `/api/channels/${encodeURIComponent(this.channelRef)}/audit${query}`, { headers: this.auth });
  }

  /** The contract's restore: Content-Type application/json, empty body unless given. */
  restore(folder: string, filename: string, query: string, body?: string, headers: object = {}): Promise<HttpResponse> {
    return request(this.baseUrl, `${this.filePath(folder, filename)}/restore${query}`, {
      method: 'POST',
      headers: { ...this.auth, 'Content-Type': 'application/json', ...headers },
      body,
    });
  }
}

/** Waits until the wall clock enters a new second, so that the next backup gets its own timestamp. */
export async function nextSecond(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

/** The bytes stored under `key`, read as the service reads them (from disk or from the bucket). */
export async function storedBytes(config: Config, key: string): Promise<Buffer | undefined> {
  const blobs = await openBlobStorage(config);
  try {
    const body = await blobs.get(key);
    if (body === undefined) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } finally {
    await blobs.close();
  }
}

/** The keys of every blob stored under `prefix` (as BlobStorage.list gives them). */
export async function storedKeys(config: Config, prefix: string): Promise<string[]> {
  const blobs = await openBlobStorage(config);
  try {
    const keys: string[] = [];
    for await (const blob of blobs.list(prefix)) keys.push(blob.key);
    return keys.sort();
  } finally {
    await blobs.close();
  }
}
