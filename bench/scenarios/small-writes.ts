import { Files, signedHeaders } from '../lib/file-api.ts';
import type { Scenario } from '../lib/scenario.ts';
import { compareCheckouts, measureLoad, type ServiceLoad } from '../lib/service-load.ts';

/** Clients at once, and files they share: as many files as clients, so that most writes find their file free. */
const CLIENTS = 50;
const FILE_BYTES = 4096;
const names = (prefix: string) => Array.from({ length: CLIENTS }, (_, i) => `${prefix}-${i}.bin`);

/** 50 clients restoring 4 KiB files: 50 files, each alternating between two backups, so that every restore replaces bytes. */
export const restoreSmall: ServiceLoad = {
  title: 'restore-small (4 KiB, 50 clients)',
  unit: 'req/s',
  expected: [200],
  async prepare({ server, deployment }, context) {
    const headers = await signedHeaders(deployment, server);
    const files = new Files(server, deployment.channelId, headers);
    const small = names('small');
    for (const name of small) await files.put('small', name, Buffer.alloc(FILE_BYTES, 1));
    const first = await files.backup();
    for (const name of small) await files.put('small', name, Buffer.alloc(FILE_BYTES, 2));
    const second = await files.backup();
    // Each path alternates between the backups, so that every restore replaces the bytes.
    const paths = [first.timestamp, second.timestamp].flatMap((timestamp) =>
      small.map((name) => `${files.path('small', name)}/restore?backupTimestamp=${timestamp}`),
    );
    return () => ({
      url: server.baseUrl,
      method: 'POST',
      paths,
      connections: CLIENTS,
      durationSeconds: context.durationSeconds,
      headers: { ...headers, 'Content-Type': 'application/json' },
    });
  },
};

/**
 * 50 clients uploading 4 KiB bodies over 50 files created beforehand, so that every upload replaces
 * a file (200) and keeps the replaced bytes as a version: the write path of an upload.
 */
export const uploadSmall: ServiceLoad = {
  title: 'upload-small (4 KiB, 50 clients)',
  unit: 'uploads/s',
  expected: [200],
  async prepare({ server, deployment }, context) {
    const headers = await signedHeaders(deployment, server);
    const files = new Files(server, deployment.channelId, headers);
    const uploads = names('upload');
    for (const name of uploads) await files.put('uploads', name, Buffer.alloc(FILE_BYTES, 1));
    const paths = uploads.map((name) => files.path('uploads', name));
    return () => ({
      url: server.baseUrl,
      method: 'PUT',
      paths,
      connections: CLIENTS,
      durationSeconds: context.durationSeconds,
      headers: { ...headers, 'Content-Type': 'application/octet-stream' },
      body: 'u'.repeat(FILE_BYTES),
    });
  },
};

/** The scenario of a load: its row on SQLite, or with --against both checkouts' rows on SQLite. */
function scenarioOf(name: string, summary: string, load: ServiceLoad): Scenario {
  return {
    name,
    summary,
    run: async (c) => [await measureLoad(c, 'sqlite', load)],
    against: async (c, other) => [await compareCheckouts(c, 'sqlite', load, other)],
  };
}

export const restoreSmallScenario = scenarioOf(
  'restore-small',
  'restores of 4 KiB files from 50 concurrent clients: requests/s, p99 and CPU per request',
  restoreSmall,
);
export const uploadSmallScenario = scenarioOf(
  'upload-small',
  'uploads of 4 KiB that each replace one of 50 files (a version kept each time), 50 concurrent clients: uploads/s, p99 and CPU per request',
  uploadSmall,
);
