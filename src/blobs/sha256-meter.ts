import { createHash } from 'node:crypto';
import { bodyTooLarge } from './blob-errors.ts';
import type { StoredBlob } from './blob-storage.ts';

/**
 * Size and sha256 of bytes as they stream past, so that no body is ever held in memory whole;
 * with a limit, refuses (PAYLOAD_TOO_LARGE) the chunk that goes beyond it, before hashing it.
 */
export class Sha256Meter {
  readonly #hash = createHash('sha256');
  #size = 0;

  constructor(private readonly maxBytes?: number) {}

  add(bytes: Uint8Array): void {
    if (this.maxBytes !== undefined && this.#size + bytes.length > this.maxBytes) throw bodyTooLarge(this.maxBytes);
    this.#size += bytes.length;
    this.#hash.update(bytes);
  }

  /** Once, after the last chunk. */
  result(): StoredBlob {
    return { size: this.#size, sha256: this.#hash.digest('hex') };
  }
}

/** Reads a stream to its end and returns its size and sha256. */
export async function sha256OfStream(source: AsyncIterable<unknown>): Promise<StoredBlob> {
  const meter = new Sha256Meter();
  for await (const chunk of source) meter.add(asBytes(chunk));
  return meter.result();
}

/** A chunk of a blob body: bytes, or a string taken as UTF-8. */
export function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  throw new TypeError('a blob body must yield bytes or strings');
}
