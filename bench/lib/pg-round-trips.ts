import net from 'node:net';

/**
 * What the service asked of PostgreSQL between two readings: its round trips (a simple Query, or a
 * Sync ending an extended-protocol exchange: each waits for the server's ReadyForQuery) and the
 * statements they carried, by their text.
 */
export interface RoundTrips {
  roundTrips: number;
  /** Statement text (whitespace folded, cut at 2,000 characters) → how many times it was sent. */
  statements: Map<string, number>;
}

/**
 * A TCP relay between the service and PostgreSQL that reads the frontend's half of the wire
 * protocol and counts what it sends: a measurement from outside, so that nothing is added to the
 * service's hot path. The backend's half is passed through unread. Each connection is relayed as
 * is, database name and user included: the service's DATABASE_URL only points at this port instead.
 * It adds a hop to every query, so it runs beside the throughput runs, never under them.
 */
export class RoundTripCounter {
  private roundTrips = 0;
  private statements = new Map<string, number>();
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<RoundTripCounter> {
    let counter: RoundTripCounter | undefined;
    const server = net.createServer((client) => counter!.relay(client, target));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    counter = new RoundTripCounter(server, (server.address() as net.AddressInfo).port);
    return counter;
  }

  /** `url` (a postgres:// URL) pointed at this relay. */
  urlFor(url: string): string {
    const relayed = new URL(url);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(this.port);
    return relayed.toString();
  }

  /** What was sent since the last take, and the counts start again from zero. */
  take(): RoundTrips {
    const taken = { roundTrips: this.roundTrips, statements: this.statements };
    this.roundTrips = 0;
    this.statements = new Map();
    return taken;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private relay(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    this.sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    upstream.pipe(client);
    const reader = new FrontendReader((type, body) => this.count(type, body));
    client.on('data', (chunk: Buffer) => {
      reader.push(chunk);
      upstream.write(chunk);
    });
    client.on('end', () => upstream.end());
  }

  private count(type: string, body: Buffer): void {
    if (type === 'Q' || type === 'S') this.roundTrips++;
    // Query: its text; Parse: a statement name, then its text (both NUL-terminated).
    const text = type === 'Q' ? cString(body, 0) : type === 'P' ? cString(body, body.indexOf(0) + 1) : undefined;
    if (text === undefined) return;
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 2000);
    this.statements.set(key, (this.statements.get(key) ?? 0) + 1);
  }
}

const cString = (body: Buffer, from: number) => body.toString('utf8', from, body.indexOf(0, from));

/**
 * Splits the frontend's byte stream into messages: first untyped ones (an SSL or GSS request, then
 * the startup message: a length and a protocol code), then typed ones (a byte, a length, the body).
 */
class FrontendReader {
  private pending: Buffer = Buffer.alloc(0);
  private started = false;

  constructor(private readonly onMessage: (type: string, body: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const header = this.started ? 5 : 8;
      if (this.pending.length < header) return;
      const length = this.pending.readInt32BE(this.started ? 1 : 0);
      const total = this.started ? 1 + length : length;
      if (this.pending.length < total) return;
      if (this.started) {
        this.onMessage(String.fromCharCode(this.pending[0]!), this.pending.subarray(5, total));
      } else {
        // 80877103 asks for SSL and 80877104 for GSS encryption (refused here: the relay reads plain text); anything else starts the session.
        const code = this.pending.readInt32BE(4);
        if (code !== 80877103 && code !== 80877104) this.started = true;
      }
      this.pending = this.pending.subarray(total);
    }
  }
}
