import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Upload, type UploadOptions } from 'tus-js-client';

/** Upload-Metadata for `folder`/`filename` (and optionally more pairs), as tus encodes it. */
export function tusMetadata(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([key, value]) => `${key} ${Buffer.from(value, 'utf8').toString('base64')}`)
    .join(',');
}

/** Random bytes of `size` (a repeated block would let a wrong offset go unseen). */
export function randomPayload(size: number): Buffer {
  return randomBytes(size);
}

/**
 * A TCP proxy in front of `target` that cuts connections: the first connection to carry a PATCH is
 * cut once the client has sent `budgets[0]` bytes through it from that PATCH on (both sides
 * destroyed, as a dropped Wi-Fi does), the next after `budgets[1]`, and so on; once the budgets are
 * spent it only forwards.
 */
export async function cuttingProxy(target: URL, budgets: number[]): Promise<{ url: string; cuts: () => number; close(): Promise<void> }> {
  const pending = [...budgets];
  let cuts = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let budget: number | undefined;
    let sent = 0;
    client.on('data', (chunk: Buffer) => {
      if (budget === undefined && sent === 0 && chunk.includes('PATCH /')) budget = pending.shift();
      if (budget === undefined) {
        upstream.write(chunk);
        return;
      }
      if (sent + chunk.length >= budget) {
        upstream.write(chunk.subarray(0, budget - sent));
        budget = undefined;
        sent = -1;
        cuts++;
        client.destroy();
        // The bytes written reach the service before the connection is reset.
        upstream.end();
        return;
      }
      sent += chunk.length;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        other.end();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    cuts: () => cuts,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Runs an upload with the official tus-js-client to its end, retrying after every failure (a
 * dropped connection) as a client on a bad network is set up to: it asks the server where the
 * upload stands (HEAD) and sends the rest. Answers the upload URL and each offset the server
 * answered to those HEADs.
 */
export function uploadToEnd(
  data: Buffer,
  options: Pick<UploadOptions, 'endpoint' | 'headers' | 'metadata' | 'uploadUrl' | 'chunkSize'>,
): Promise<{ url: string; resumedAt: number[] }> {
  return new Promise((resolve, reject) => {
    const resumedAt: number[] = [];
    const upload: Upload = new Upload(data, {
      ...options,
      retryDelays: [0, 100, 300, 1000, 2000],
      storeFingerprintForResuming: false,
      onAfterResponse(request, response) {
        if (request.getMethod() === 'HEAD') resumedAt.push(Number(response.getHeader('Upload-Offset')));
      },
      onSuccess: () => resolve({ url: upload.url as string, resumedAt }),
      onError: reject,
    });
    upload.start();
  });
}
