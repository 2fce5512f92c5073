import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a receiver got: its headers (lowercased names) and body. */
export interface Received {
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * A webhook receiver on loopback: records every POST, answers with what `answer` says (a status;
 * 'hang' never answers). Each delivery's parsed event is in `events()`, in arrival order.
 */
export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** The parsed bodies of every delivery answered 2xx (what the service counts delivered). */
  events(): { id: string; type: string; tenantId: string; channelId?: string; time: string; data: Record<string, unknown> }[];
  answer: (received: Received) => number | 'hang';
  /** Resolves once `predicate` holds of the events answered 2xx, or rejects after `timeoutMs`. */
  waitFor(predicate: (events: ReturnType<WebhookReceiver['events']>) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  const accepted: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    answer: () => 204,
    events: () => accepted.map((r) => JSON.parse(r.body)),
    async waitFor(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(receiver.events())) {
        if (Date.now() > deadline) {
          throw new Error(
            `The receiver did not get what was awaited within ${timeoutMs} ms; it has ${accepted.length} events: ${receiver
              .events()
              .map((e) => e.type)
              .join(', ')}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
      const got: Received = { headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.received.push(got);
      const status = request.url === path ? receiver.answer(got) : 404;
      if (status === 'hang') {
        hanging.add(response);
        return;
      }
      if (status >= 200 && status < 300) accepted.push(got);
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? `receiver says ${status}` : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
