import { randomBytes } from 'node:crypto';
import { Upload, type UploadOptions } from 'tus-js-client';

/** Upload-Metadata for `folder`/`filename` (and optionally more pairs), as tus encodes it. */
export function tusMetadata(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key} ${Buffer.from(value, 'utf8').toString('base64')}`)
    .join(',');
}

/** Random bytes of `size`, made quickly (a repeated random block would let a wrong offset go unseen). */
export function randomPayload(size: number): Buffer {
  return randomBytes(size);
}

/**
 * Runs an upload with the official tus-js-client to its end, aborting it (the connection cut
 * mid-PATCH) at each of `cuts` (fractions of the size, increasing) and starting it again: the
 * client asks the server where it stands (HEAD) and sends the rest. Answers the upload URL.
 */
export function uploadWithCuts(
  data: Buffer,
  options: Pick<UploadOptions, 'endpoint' | 'headers' | 'metadata' | 'uploadUrl' | 'chunkSize'>,
  cuts: number[] = [],
): Promise<{ url: string; cutsMade: number }> {
  return new Promise((resolve, reject) => {
    const pending = [...cuts];
    let cutsMade = 0;
    const upload: Upload = new Upload(data, {
      ...options,
      retryDelays: [0, 200, 500, 1000],
      storeFingerprintForResuming: false,
      onProgress(sent, total) {
        const next = pending[0];
        if (next === undefined || sent < next * total) return;
        pending.shift();
        cutsMade++;
        void upload.abort(false).then(() => setTimeout(() => upload.start(), 50));
      },
      onSuccess: () => resolve({ url: upload.url as string, cutsMade }),
      onError: reject,
    });
    upload.start();
  });
}
