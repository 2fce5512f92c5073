import { pipeline, type Readable, Transform } from 'node:stream';
import { AppError } from '../errors/app-error.ts';

/**
 * `body` as a stream of exactly `length` bytes, or an error. A download declares its length
 * before it sends a byte; a blob that turns out longer must never put the surplus on the
 * connection, where a client or a proxy reusing it would read it as the next response (response
 * splitting), and one that turns out shorter must not pass for whole. So the stream errors as soon
 * as the difference shows, without the chunk that overflows, which makes the HTTP layer cut the
 * connection: the client sees a body cut short, never a longer one. Blobs are checked against the
 * record's size before the first byte (BlobStorage.get), so this guards against a disk that
 * changes under a read, not against the common case.
 */
export function exactLength(body: Readable, length: number): Readable {
  let seen = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > length) done(mismatch(`more than the ${length} bytes declared`));
      else done(null, chunk);
    },
    flush(done) {
      done(seen === length ? null : mismatch(`${seen} of the ${length} bytes declared`));
    },
  });
  // pipeline, not pipe: an error of the blob's stream must end the guard (and the answer) too.
  return pipeline(body, guard, () => {});
}

function mismatch(what: string): AppError {
  return new AppError('INTEGRITY_FAILED', `The stored bytes of the file ran to ${what}; the download was cut off`);
}
