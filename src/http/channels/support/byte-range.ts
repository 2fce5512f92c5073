import type { ByteRange } from '../../../blobs/blob-storage.ts';
import { AppError } from '../../../errors/app-error.ts';

/**
 * One range of a `Range: bytes=…` header, clamped to the file. Undefined means "send it all"
 * (no header, another unit, or several ranges, which RFC 9110 lets a server ignore).
 */
export function parseRangeHeader(header: string | undefined, size: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, first, last] = match as unknown as [string, string, string];
  let range: ByteRange | undefined;
  if (first === '' && last !== '') {
    const suffix = Number(last);
    if (suffix > 0 && size > 0) range = { start: Math.max(0, size - suffix), end: size - 1 };
  } else if (first !== '') {
    const start = Number(first);
    const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (start < size && start <= end) range = { start, end };
  }
  if (range === undefined) {
    throw new AppError('RANGE_NOT_SATISFIABLE', `Range ${header.slice(0, 60)} is outside the file's ${size} bytes`, { size });
  }
  return range;
}
