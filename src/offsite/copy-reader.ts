import { createHash } from 'node:crypto';
import { ageDecrypt, ageDecryptBuffer } from '../age/age-decrypt.ts';
import { BLOBS, GENERATIONS, parseSegmentName } from './object-names.ts';
import { type BlobEntry, decodeSegment, type Segment, sha256Hex } from './segment-format.ts';
import type { OffsiteTarget } from './target/offsite-target.ts';

/** What `offsite status` prints for the operator to publish, and `verify --head-file` checks against. */
export interface CopyHead {
  target: string;
  generation: string;
  segment: number;
  hash: string;
}

export interface ReadGeneration {
  generation: string;
  segments: Segment[];
  /** The plaintext hash of each segment, by number. */
  hashes: string[];
}

export interface CopyReport {
  /** The first thing that failed, named; undefined: the copy verified. */
  failure: string | undefined;
  generations: ReadGeneration[];
  head: CopyHead | undefined;
  /** Without a head file a truncation (the newest segments deleted) cannot be seen: said here. */
  notes: string[];
  blobsChecked: number;
}

export interface ReadOptions {
  identities: Uint8Array[];
  /** The head published earlier: the copy must reach it, with that very hash. */
  head?: CopyHead;
  /** Decrypt every blob and check its sha256 (verify, drill); false: check each is present. */
  checkBlobs: boolean;
  /** Stop after this generation (a rebuild reads only what it loads). */
  onlyGeneration?: string;
}

class CopyFailure extends Error {}

/**
 * Reads and checks a copy, offline, with the operator's identity (docs/offsite.md, "Verifying"):
 * every generation's segments are there from 0 on, decrypt, say they are what their names say,
 * come from one target and each name the hash of the one before; every blob they name is there
 * (and, checked, decrypts to its sha256). Stops at the first failure and names it.
 */
export async function readCopy(target: OffsiteTarget, options: ReadOptions): Promise<CopyReport> {
  const report: CopyReport = { failure: undefined, generations: [], head: undefined, notes: [], blobsChecked: 0 };
  try {
    await read(target, options, report);
  } catch (error) {
    if (!(error instanceof CopyFailure)) throw error;
    report.failure = error.message;
  }
  return report;
}

async function read(target: OffsiteTarget, options: ReadOptions, report: CopyReport): Promise<void> {
  const byGeneration = new Map<string, number[]>();
  for await (const object of target.list(GENERATIONS)) {
    const parsed = parseSegmentName(object.name);
    if (!parsed) throw new CopyFailure(`${object.name} is not a segment name this format writes: the copy holds something it did not ship`);
    byGeneration.set(parsed.generation, [...(byGeneration.get(parsed.generation) ?? []), parsed.segment]);
  }
  if (byGeneration.size === 0) throw new CopyFailure(`${target.description} holds no copy (no segment under ${GENERATIONS})`);
  const blobSizes = new Map<string, number>();
  for await (const object of target.list(BLOBS)) blobSizes.set(object.name, object.size);
  const checked = new Set<string>();

  let targetId = options.head?.target;
  const names = [...byGeneration.keys()].sort();
  const wanted = options.onlyGeneration ? names.filter((name) => name === options.onlyGeneration) : names;
  if (options.onlyGeneration && wanted.length === 0) throw new CopyFailure(`the copy has no generation ${options.onlyGeneration}`);
  for (const generation of wanted) {
    const numbers = byGeneration.get(generation)!.sort((a, b) => a - b);
    const read: ReadGeneration = { generation, segments: [], hashes: [] };
    for (let n = 0; n < numbers.length; n++) {
      if (numbers[n] !== n) throw new CopyFailure(`segment ${n} of generation ${generation} is missing (the next there is ${numbers[n]})`);
      const where = `segment ${n} of generation ${generation}`;
      const plaintext = await decryptObject(
        target,
        `${GENERATIONS}${generation}/${String(n).padStart(12, '0')}.age`,
        options.identities,
        where,
      );
      let segment: Segment;
      try {
        segment = decodeSegment(plaintext);
      } catch (error) {
        throw new CopyFailure(`${where} is not a readable segment: ${(error as Error).message}`);
      }
      const { header } = segment;
      // The target first: a segment of another target is of another generation too (names are
      // random), and "moved or replaced" would hide where it came from.
      targetId ??= header.target;
      if (header.target !== targetId) {
        throw new CopyFailure(
          `${where} was shipped to another target (${header.target}, not ${targetId}): it does not belong to this copy`,
        );
      }
      if (header.generation !== generation || header.segment !== n) {
        throw new CopyFailure(
          `${where} holds segment ${header.segment} of generation ${header.generation}: segments were moved or replaced`,
        );
      }
      if ((n === 0) !== (header.kind === 'snapshot'))
        throw new CopyFailure(`${where} is a ${header.kind} segment where a ${n === 0 ? 'snapshot' : 'changes segment'} belongs`);
      const expectedPrev = n === 0 ? null : read.hashes[n - 1]!;
      if (header.prev !== expectedPrev) {
        throw new CopyFailure(
          `${where} does not follow segment ${n - 1}: it names a previous segment of hash ${header.prev}, not ${expectedPrev}`,
        );
      }
      for (const blob of segment.blobs) await checkBlob(target, blob, blobSizes, checked, options, report, where);
      read.segments.push(segment);
      read.hashes.push(sha256Hex(plaintext));
    }
    report.generations.push(read);
  }
  // Oldest first by when each snapshot was taken, not by name: a name is stamped only to the second
  // (object-names.ts), so two generations begun within one second sort by their random tails, and
  // the newest (the head, what a rebuild loads) would be a coin toss.
  report.generations.sort((a, b) => a.segments[0]!.header.createdAt - b.segments[0]!.header.createdAt);
  const last = report.generations[report.generations.length - 1]!;
  const lastSegment = last.segments.length - 1;
  report.head = { target: targetId!, generation: last.generation, segment: lastSegment, hash: last.hashes[lastSegment]! };
  const head = options.head;
  if (head === undefined) {
    report.notes.push(
      `complete up to segment ${lastSegment} of generation ${last.generation}; a truncation cannot be detected without --head-file`,
    );
    return;
  }
  const published = report.generations.find((g) => g.generation === head.generation);
  if (published === undefined) {
    if (!options.onlyGeneration)
      throw new CopyFailure(`the published head names generation ${head.generation}, which the copy no longer holds: it was truncated`);
    return;
  }
  if (published.hashes.length <= head.segment) {
    throw new CopyFailure(
      `the published head names segment ${head.segment} of generation ${head.generation}; the copy ends at segment ${published.hashes.length - 1}: it was truncated`,
    );
  }
  if (published.hashes[head.segment] !== head.hash) {
    throw new CopyFailure(
      `segment ${head.segment} of generation ${head.generation} does not have the published head's hash: it was replaced`,
    );
  }
}

async function checkBlob(
  target: OffsiteTarget,
  blob: BlobEntry,
  sizes: Map<string, number>,
  checked: Set<string>,
  options: ReadOptions,
  report: CopyReport,
  where: string,
): Promise<void> {
  if (blob.gone) return;
  if (!sizes.has(blob.object)) throw new CopyFailure(`the blob of ${blob.key}, named by ${where}, is missing (${blob.object})`);
  if (!options.checkBlobs || checked.has(blob.object)) return;
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of ageDecrypt(options.identities, await target.get(blob.object))) {
      hash.update(chunk);
      size += chunk.byteLength;
    }
  } catch (error) {
    throw new CopyFailure(`the blob of ${blob.key} (${blob.object}) does not decrypt: ${(error as Error).message}`);
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== blob.sha256 || size !== blob.size) {
    throw new CopyFailure(
      `the blob of ${blob.key} (${blob.object}) decrypts to ${size} bytes of sha256 ${sha256}, not the recorded ${blob.size} bytes of ${blob.sha256}`,
    );
  }
  checked.add(blob.object);
  report.blobsChecked++;
}

async function decryptObject(target: OffsiteTarget, name: string, identities: Uint8Array[], where: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await target.get(name)) chunks.push(Buffer.from(chunk));
  try {
    return await ageDecryptBuffer(identities, Buffer.concat(chunks));
  } catch (error) {
    throw new CopyFailure(`${where} does not decrypt: ${(error as Error).message}`);
  }
}

/** The head as `offsite status` prints it and `--head-file` reads it: one JSON object. */
export function parseHead(text: string): CopyHead {
  const head = JSON.parse(text) as CopyHead;
  if (
    typeof head?.target !== 'string' ||
    typeof head.generation !== 'string' ||
    !Number.isInteger(head.segment) ||
    typeof head.hash !== 'string'
  ) {
    throw new Error(
      'a head file holds {"target", "generation", "segment", "hash"}, as `wallet-admin offsite status --json` prints under "head"',
    );
  }
  return head;
}
