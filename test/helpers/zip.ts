import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import { sha256 } from './files.ts';

const run = promisify(execFile);

/** Every entry of a ZIP as a second reader (yauzl) sees it: name, the UTF-8 flag, and the bytes' sha256. */
export async function readZip(zip: Buffer): Promise<Map<string, { sha256: string; utf8: boolean; size: number }>> {
  const file = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(zip, { lazyEntries: true, strictFileNames: true }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  const entries = new Map<string, { sha256: string; utf8: boolean; size: number }>();
  await new Promise<void>((resolve, reject) => {
    file.on('error', reject);
    file.on('end', resolve);
    file.on('entry', (entry: yauzl.Entry) => {
      file.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', reject);
        stream.on('end', () => {
          const bytes = Buffer.concat(chunks);
          entries.set(entry.fileName, { sha256: sha256(bytes), utf8: (entry.generalPurposeBitFlag & 0x800) !== 0, size: bytes.length });
          file.readEntry();
        });
      });
    });
    file.readEntry();
  });
  return entries;
}

/** `unzip -t` and `7z t` both test every entry's CRC and find nothing wrong. */
export async function testedByTools(zip: Buffer): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'archive-'));
  try {
    const file = path.join(dir, 'a.zip');
    await writeFile(file, zip);
    await zipFileTestedByTools(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** As testedByTools, of a ZIP on disk; both tools at once (each reads the whole file). */
export async function zipFileTestedByTools(file: string): Promise<void> {
  const [unzip, sevenZip] = await Promise.all([
    run('unzip', ['-t', file], { maxBuffer: 64 << 20 }),
    run('7z', ['t', file], { maxBuffer: 64 << 20 }),
  ]);
  assert.match(unzip.stdout, /No errors detected/);
  assert.match(sevenZip.stdout, /Everything is Ok/);
}
