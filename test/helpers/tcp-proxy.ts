import net from 'node:net';

/**
 * A TCP proxy on loopback in front of a server (the network between a service and a store): it
 * forwards, or is cut — the connections open are reset mid-stream, wherever they are, and new
 * ones are refused (nothing listens on its port) — until it forwards again on the same port.
 */
export interface TcpProxy {
  port: number;
  /** http://127.0.0.1:port */
  endpoint: string;
  /** Every byte a client sent toward the server, one Buffer per connection, in the order they opened. */
  sent(): Buffer[];
  /** Connections cut while a client was still sending: the cuts that fell mid-request. */
  readonly cutMidRequest: number;
  /** Resets every open connection and refuses new ones. */
  cut(): Promise<void>;
  /**
   * Forwards `bytes` more of what clients send, then cuts (see cut) in the middle of whatever is
   * being sent: resolves once it has.
   */
  cutAfter(bytes: number): Promise<void>;
  /** Listens again on the same port and forwards. */
  forward(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  sent: Buffer[];
  /** When the client last sent a byte: a connection it last used well before a cut sat idle. */
  lastSent: number;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  const all: Pair[] = [];
  let budget: { left: number; cut: () => void } | undefined;
  let cutMidRequest = 0;
  let server: net.Server | undefined;
  let port = 0;

  const cutAll = () => {
    for (const pair of pairs) {
      // Within the last 50 ms: a request (or its body) was still coming.
      if (Date.now() - pair.lastSent < 50) cutMidRequest++;
      pair.client.resetAndDestroy();
      pair.upstream.resetAndDestroy();
    }
    pairs.clear();
  };

  const onConnection = (client: net.Socket) => {
    const upstream = net.connect(targetPort, targetHost);
    const pair: Pair = { client, upstream, sent: [], lastSent: 0 };
    pairs.add(pair);
    all.push(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
    client.on('data', (chunk: Buffer) => {
      pair.lastSent = Date.now();
      let forwarded = chunk;
      let cutNow: (() => void) | undefined;
      if (budget !== undefined) {
        if (chunk.length >= budget.left) {
          forwarded = chunk.subarray(0, budget.left);
          cutNow = budget.cut;
          budget = undefined;
        } else budget.left -= chunk.length;
      }
      pair.sent.push(Buffer.from(forwarded));
      if (!upstream.write(forwarded)) {
        client.pause();
        upstream.once('drain', () => client.resume());
      }
      cutNow?.();
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!client.write(chunk)) {
        upstream.pause();
        client.once('drain', () => upstream.resume());
      }
    });
  };

  const listen = async () => {
    server = net.createServer(onConnection);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.address() as net.AddressInfo).port;
  };

  const stopListening = async () => {
    const closing = server;
    server = undefined;
    if (closing === undefined) return;
    const closed = new Promise((resolve) => closing.close(resolve));
    cutAll();
    await closed;
  };

  await listen();
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    sent: () => all.map((pair) => Buffer.concat(pair.sent)),
    get cutMidRequest() {
      return cutMidRequest;
    },
    cut: stopListening,
    cutAfter(bytes) {
      return new Promise((resolve, reject) => {
        budget = { left: bytes, cut: () => void stopListening().then(resolve, reject) };
      });
    },
    async forward() {
      if (server === undefined) await listen();
    },
    close: stopListening,
  };
}
