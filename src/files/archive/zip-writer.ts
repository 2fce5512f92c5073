import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

/** An entry to write: its path in the archive, its exact size, its time, and how to open its bytes when its turn comes. */
export interface ZipInput {
  path: string;
  size: number;
  modifiedAt: number;
  open: () => Promise<Readable>;
}

/**
 * A ZIP of `inputs`, streamed: stored as they are (no compression: what a store keeps is mostly
 * compressed already, and the archive goes as fast as the disk), names in UTF-8 with the flag set,
 * ZIP64 records wherever an offset, a size or the entry count needs them (yazl decides). Each
 * entry's bytes are opened only when the one before is written, so one blob is open at a time and
 * memory stays flat however large the archive; an entry whose bytes are not `size` long fails the
 * stream. `size` is the archive's exact length. The output fails (is destroyed with the error) when an entry cannot be read.
 */
export function zipOf(inputs: readonly ZipInput[]): { stream: Readable; size: number } {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  // yazl pipes each entry's bytes without watching them: a read that fails, or an output the
  // client stopped reading, must end the other side here.
  let reading: Readable | undefined;
  for (const input of inputs) {
    zip.addReadStreamLazy(input.path, { size: input.size, mtime: new Date(input.modifiedAt), compress: false }, (done) => {
      if (output.destroyed) return;
      input.open().then(
        (stream) => {
          reading = stream;
          stream.on('error', (error) => output.destroy(error));
          if (output.destroyed) stream.destroy();
          else done(null, stream);
        },
        (error: unknown) => done(error, undefined as unknown as Readable),
      );
    });
  }
  zip.on('error', (error: Error) => output.destroy(error));
  output.on('close', () => reading?.destroy());
  // Every size is known and nothing is compressed: yazl works out the archive's exact length at
  // once (a Content-Length, and a browser's progress bar).
  let size = -1;
  // @types/yazl leaves out the total the callback is given.
  const end = zip.end.bind(zip) as (options: { forceZip64Format: boolean; comment: string }, total: (size: number) => void) => void;
  end({ forceZip64Format: false, comment: '' }, (total) => {
    size = total;
  });
  if (size < 0) throw new Error('the archive length could not be worked out in advance');
  return { stream: output, size };
}
