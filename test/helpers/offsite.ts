import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { SHIPPED_TABLES } from '../../src/metadata/offsite/shipped-tables.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';

const run = promisify(execFile);

export interface OffsiteKeys {
  identityFile: string;
  recipient: string;
  dir: string;
}

/** An identity made by the real `age-keygen` (Debian's age), and its recipient. */
export async function ageKeys(): Promise<OffsiteKeys> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-age-'));
  const identityFile = path.join(dir, 'key.txt');
  await run('age-keygen', ['-o', identityFile]);
  const { stdout } = await run('age-keygen', ['-y', identityFile]);
  return { identityFile, recipient: stdout.trim(), dir };
}

/** A fresh directory to ship to (a second disk, as far as the service knows). */
export async function offsiteDir(): Promise<{ dir: string; url: string; drop(): Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-offsite-'));
  return { dir, url: `file://${dir}`, drop: () => rm(dir, { recursive: true, force: true }) };
}

export async function writeText(file: string, text: string): Promise<void> {
  await writeFile(file, text);
}

/**
 * Everything a rebuild must bring back, as comparable values: every row of every shipped table (in
 * key order) and the sha256 of every blob a row names. `ignore` leaves out columns a rebuild
 * rightly changes (admins.signed_out_before).
 */
export async function recordedState(
  store: MetadataStore,
  blobs: BlobStorage,
  ignore: Record<string, string[]> = { admins: ['signed_out_before'] },
): Promise<{ tables: Record<string, Record<string, unknown>[]>; blobs: Record<string, string> }> {
  const tables: Record<string, Record<string, unknown>[]> = {};
  const keys = new Set<string>();
  for (const table of SHIPPED_TABLES) {
    const rows = await store.offsite.rows(table.name);
    tables[table.name] = rows.map((row) => {
      const copy = { ...row };
      for (const column of ignore[table.name] ?? []) delete copy[column];
      // SQLite and PostgreSQL agree on values, not on the order of columns.
      return Object.fromEntries(Object.entries(copy).sort(([a], [b]) => a.localeCompare(b)));
    });
    for (const row of rows) if (typeof row.blob_key === 'string') keys.add(row.blob_key);
  }
  const hashes: Record<string, string> = {};
  for (const key of [...keys].sort()) {
    const stream = await blobs.get(key);
    if (stream === undefined) {
      hashes[key] = 'missing';
      continue;
    }
    const hash = createHash('sha256');
    for await (const chunk of stream) hash.update(chunk as Buffer);
    hashes[key] = hash.digest('hex');
  }
  return { tables, blobs: hashes };
}
