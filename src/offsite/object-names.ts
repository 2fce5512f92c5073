import { createHmac, randomBytes } from 'node:crypto';

/**
 * Names at the target (docs/offsite.md, "Layout"). They say nothing of what they hold: a blob is
 * named by an HMAC of its key (which holds folder and file names) under a key the service keeps,
 * so the same blob always gets the same name (shipped once, by any instance) and the name reveals
 * nothing to whoever lists the bucket.
 */

export const GENERATIONS = 'generations/';
export const BLOBS = 'blobs/';
/** The target's id in plaintext (shipper.ts): a service shipping to a target that holds a copy goes on with it. */
export const TARGET_MARKER = 'target.json';
const SEGMENT_DIGITS = 12;

export function newGeneration(at: number): string {
  const stamp = new Date(at)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `g${stamp}-${randomBytes(4).toString('hex')}`;
}

export function segmentName(generation: string, segment: number): string {
  return `${GENERATIONS}${generation}/${String(segment).padStart(SEGMENT_DIGITS, '0')}.age`;
}

/** A segment object's generation and number, or undefined for a name that is not one. */
export function parseSegmentName(name: string): { generation: string; segment: number } | undefined {
  const match = /^generations\/(g\d{8}T\d{6}Z-[0-9a-f]{8})\/(\d{12})\.age$/.exec(name);
  return match ? { generation: match[1]!, segment: Number(match[2]) } : undefined;
}

export function blobName(namingKey: string, blobKey: string): string {
  return `${BLOBS}${createHmac('sha256', namingKey).update(blobKey).digest('hex')}.age`;
}

export function newTargetId(): string {
  return `t-${randomBytes(12).toString('hex')}`;
}
