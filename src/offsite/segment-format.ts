import { createHash } from 'node:crypto';
import type { CapturedChange } from '../model/offsite.ts';

/**
 * A segment's plaintext (docs/offsite.md, "The format"): JSON lines. The first line is the
 * header; then one line per blob the segment's rows name; then one line per row (a snapshot) or
 * per change (a changes segment). The whole is encrypted with age as one object; its plaintext's
 * sha256 is the segment's hash, which the next segment names, so that a segment removed, replaced,
 * reordered or brought from another target breaks the chain where it happened.
 */

export const SEGMENT_FORMAT = 'wallet-admin/offsite-segment/1';

export interface SegmentHeader {
  format: typeof SEGMENT_FORMAT;
  /** The id the target was given when shipping to it began: a segment of another target carries another. */
  target: string;
  generation: string;
  segment: number;
  kind: 'snapshot' | 'changes';
  /** The sha256 of the segment before it in this generation; for a snapshot, null. */
  prev: string | null;
  /** For a snapshot: the last segment of the generation shipped before it, if any. */
  previousGeneration: { generation: string; segment: number; hash: string } | null;
  /** The last migration the rows were written under: a rebuild creates that schema, loads, then migrates. */
  schema: string;
  /** When the segment was made (epoch ms); for a snapshot, the instant its rows are as of. */
  createdAt: number;
  /** The audit chain heads (per tenant and the service's) once this segment is applied. */
  auditHeads: Record<string, { seq: number; hash: string }>;
  blobs: number;
  records: number;
  /** A tenant's own copy (docs/offsite.md, "A tenant's own copy"): the tenant whose rows alone it holds. */
  tenant?: string;
  /** A changes segment: the time of its first and last change. */
  changesFrom?: number;
  changesTo?: number;
}

/** A blob a segment's rows name: where its ciphertext is, and what its plaintext must hash to. */
export interface BlobEntry {
  key: string;
  object: string;
  sha256: string;
  size: number;
  /** Set when the primary's bytes did not match their record when shipped: what they hashed to then. */
  damaged?: string;
  /** Set when the blob was gone from the primary before it could be shipped (a row removed since). */
  gone?: true;
}

export interface SnapshotRecord {
  t: string;
  r: Record<string, unknown>;
}

export interface ChangeRecord {
  s: number;
  t: string;
  o: CapturedChange['op'];
  k: Record<string, unknown> | null;
  r: Record<string, unknown> | null;
  a: number;
}

export interface Segment {
  header: SegmentHeader;
  blobs: BlobEntry[];
  rows: SnapshotRecord[];
  changes: ChangeRecord[];
}

export function encodeSegment(header: SegmentHeader, blobs: BlobEntry[], records: (SnapshotRecord | ChangeRecord)[]): Buffer {
  const lines = [
    JSON.stringify(header),
    ...blobs.map((blob) => JSON.stringify({ b: blob })),
    ...records.map((record) => JSON.stringify(record)),
  ];
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

export function changeRecord(change: CapturedChange): ChangeRecord {
  return { s: change.seq, t: change.table, o: change.op, k: change.oldKey, r: change.row, a: change.at };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads a decrypted segment; throws naming what is malformed. */
export function decodeSegment(plaintext: Buffer): Segment {
  const text = plaintext.toString('utf8');
  if (!text.endsWith('\n')) throw new Error('it does not end with a complete line');
  const lines = text.slice(0, -1).split('\n');
  const header = parseLine(lines[0] ?? '', 1) as SegmentHeader;
  if (header?.format !== SEGMENT_FORMAT) throw new Error(`its first line is not a ${SEGMENT_FORMAT} header`);
  const blobs: BlobEntry[] = [];
  const rows: SnapshotRecord[] = [];
  const changes: ChangeRecord[] = [];
  for (let i = 1; i < lines.length; i++) {
    const record = parseLine(lines[i]!, i + 1) as Record<string, unknown>;
    if ('b' in record) blobs.push(record.b as BlobEntry);
    else if (header.kind === 'snapshot') rows.push(record as unknown as SnapshotRecord);
    else changes.push(record as unknown as ChangeRecord);
  }
  if (blobs.length !== header.blobs || rows.length + changes.length !== header.records) {
    throw new Error(
      `it holds ${blobs.length} blobs and ${rows.length + changes.length} records, its header says ${header.blobs} and ${header.records}`,
    );
  }
  return { header, blobs, rows, changes };
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`line ${number} is not JSON`);
  }
}
