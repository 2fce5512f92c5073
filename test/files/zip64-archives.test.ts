import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, test } from 'node:test';
import yauzl from 'yauzl';
import { type ZipInput, zipOf } from '../../src/files/archive/zip-writer.ts';
import { zipFileTestedByTools } from '../helpers/zip.ts';

/**
 * The ZIP64 paths of the archive writer at their real thresholds, with generated entries: more
 * than 65,535 entries, and an entry whose local header lies past 4 GiB. The archives go to disk
 * (the tools need a file), are tested by `unzip -t` and `7z t`, and are read back by yauzl.
 * Whole suite only: about 4 GiB pass through the CRC and the disk.
 */

const GIB = 1024 ** 3;
let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'zip64-'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** `size` bytes, generated a MiB at a time: nothing of them is ever held beyond one chunk. */
function generated(size: number, fill: number): Readable {
  const chunk = Buffer.alloc(1 << 20, fill);
  let left = size;
  return new Readable({
    read() {
      if (left === 0) return void this.push(null);
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      this.push(part);
    },
  });
}

const small = (index: number): ZipInput => {
  const text = `entry ${index}\n`;
  return { path: `many/${index}.txt`, size: text.length, modifiedAt: 0, open: async () => Readable.from([Buffer.from(text)]) };
};

async function written(inputs: ZipInput[], name: string): Promise<{ file: string; size: number; peakRss: number }> {
  const file = path.join(dir, name);
  const zip = zipOf(inputs);
  let peakRss = process.memoryUsage.rss();
  const sample = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 50);
  try {
    await pipeline(zip.stream, createWriteStream(file));
  } finally {
    clearInterval(sample);
  }
  assert.equal((await stat(file)).size, zip.size, 'the length announced beforehand is the length written');
  return { file, size: zip.size, peakRss };
}

function open(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => yauzl.open(file, { lazyEntries: true }, (error, zip) => (error ? reject(error) : resolve(zip))));
}

async function entriesOf(file: string): Promise<yauzl.Entry[]> {
  const zip = await open(file);
  const entries: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return entries;
}

test('more than 65,535 entries: a ZIP64 end record, read back entry for entry', async () => {
  const count = 65_536 + 10;
  const { file } = await written(
    Array.from({ length: count }, (_, i) => small(i)),
    'many.zip',
  );
  await zipFileTestedByTools(file);
  const entries = await entriesOf(file);
  assert.equal(entries.length, count);
  assert.equal(entries.at(-1)?.fileName, `many/${count - 1}.txt`);
});

test('an entry past 4 GiB of offset, in flat memory', async () => {
  const big = GIB * 4 + 1;
  const before = process.memoryUsage.rss();
  const { file, peakRss } = await written(
    [
      { path: 'big/zeros.bin', size: big, modifiedAt: Date.now(), open: async () => generated(big, 0) },
      { path: 'big/after.txt', size: 6, modifiedAt: Date.now(), open: async () => Readable.from([Buffer.from('after\n')]) },
    ],
    'big.zip',
  );
  assert.ok(peakRss - before < 256 * 1024 ** 2, `memory stays flat: RSS grew ${Math.round((peakRss - before) / 1024 ** 2)} MiB`);
  await zipFileTestedByTools(file);
  const entries = await entriesOf(file);
  const tail = entries.find((entry) => entry.fileName === 'big/after.txt');
  assert.ok(tail, 'the entry after 4 GiB is listed');
  assert.ok(tail.relativeOffsetOfLocalHeader > 4 * GIB, 'its local header lies past 4 GiB: a ZIP64 offset');
  const zip = await open(file);
  const text = await new Promise<string>((resolve, reject) =>
    zip.openReadStream(tail, (error, stream) => {
      if (error) return reject(error);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => resolve(Buffer.concat(chunks).toString()));
      stream.on('error', reject);
    }),
  );
  zip.close();
  assert.equal(text, 'after\n');
  assert.equal(entries.find((entry) => entry.fileName === 'big/zeros.bin')?.uncompressedSize, big);
});
