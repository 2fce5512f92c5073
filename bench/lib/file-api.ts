import type { Deployment } from './deployment.ts';
import type { RunningServer } from './servers.ts';
import { signInHeaders } from './sign-in.ts';

/** The three signed headers of the bench owner, valid for hours: after the first request, a signature-cache hit. */
export function signedHeaders(deployment: Deployment, server: RunningServer): Promise<Record<string, string>> {
  return signInHeaders(deployment.privateKey, `127.0.0.1:${server.port}`, 'benchfiles000001', 6 * 3600_000);
}

/** Waits for the next second: backups are named by their second, so one per second. */
export function nextSecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
}

interface ScopeRestoreAnswer {
  dryRun: boolean;
  safetyBackup: string | null;
  changes: { folder: string; filename: string; action: 'replace' | 'create' | 'delete' }[];
  unchanged: number;
}

/** The file API of the bench channel over plain fetch. */
export class Files {
  constructor(
    private readonly server: RunningServer,
    private readonly channelId: string,
    private readonly headers: Record<string, string>,
  ) {}

  path(folder: string, filename: string): string {
    return `/api/channels/${this.channelId}/folders/${encodeURIComponent(folder)}/files/${encodeURIComponent(filename)}`;
  }

  async put(folder: string, filename: string, body: Buffer | ReadableStream | NodeJS.ReadableStream, size?: number): Promise<void> {
    const response = await fetch(`${this.server.baseUrl}${this.path(folder, filename)}`, {
      method: 'PUT',
      headers: {
        ...this.headers,
        'Content-Type': 'application/octet-stream',
        ...(size !== undefined ? { 'Content-Length': String(size) } : {}),
      },
      body: body as BodyInit,
      duplex: 'half',
    } as RequestInit);
    if (response.status !== 200 && response.status !== 201) throw new Error(`PUT ${filename}: ${response.status} ${await response.text()}`);
  }

  /** `ms` is the request's own time, after the wait for a second of its own. */
  async backup(): Promise<{ timestamp: string; files: number; bytes: number; ms: number }> {
    await nextSecond();
    return this.backupNow();
  }

  /** A backup in the current second (the caller has waited for a second of its own). */
  async backupNow(): Promise<{ timestamp: string; files: number; bytes: number; ms: number }> {
    const started = performance.now();
    const response = await fetch(`${this.server.baseUrl}/api/channels/${this.channelId}/backups`, {
      method: 'POST',
      headers: { ...this.headers, 'Content-Type': 'application/json' },
    });
    if (response.status !== 201) throw new Error(`backup: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { timestamp: string; files: number; bytes: number };
    return { ...body, ms: performance.now() - started };
  }

  async get(folder: string, filename: string): Promise<Buffer> {
    const response = await fetch(`${this.server.baseUrl}${this.path(folder, filename)}`, { headers: this.headers });
    if (response.status !== 200) throw new Error(`GET ${filename}: ${response.status} ${await response.text()}`);
    return Buffer.from(await response.arrayBuffer());
  }

  /** A restore of the whole channel from a backup (or its plan only); `ms` is the request's time. */
  async restoreChannel(timestamp: string, dryRun: boolean): Promise<{ body: ScopeRestoreAnswer; ms: number }> {
    const started = performance.now();
    const response = await fetch(
      `${this.server.baseUrl}/api/channels/${this.channelId}/restore?backupTimestamp=${timestamp}&dryRun=${dryRun}`,
      { method: 'POST', headers: this.headers },
    );
    if (response.status !== 200) throw new Error(`channel restore: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as ScopeRestoreAnswer;
    return { body, ms: performance.now() - started };
  }

  async restore(folder: string, filename: string, timestamp: string): Promise<void> {
    const response = await fetch(`${this.server.baseUrl}${this.path(folder, filename)}/restore?backupTimestamp=${timestamp}`, {
      method: 'POST',
      headers: { ...this.headers, 'Content-Type': 'application/json' },
    });
    if (response.status !== 200) throw new Error(`restore: ${response.status} ${await response.text()}`);
    await response.text();
  }
}
