import type { IncomingMessage, ServerResponse } from 'node:http';

/** What is known of one body still arriving: the socket's byte count when it last moved. */
interface Progress {
  response: ServerResponse;
  bytesRead: number;
  movedAt: number;
}

/** A stall is noticed at most this long after the idle limit has passed. */
const MAX_TICK_MS = 1000;

/**
 * Cuts request bodies that stop arriving, however long a body that keeps arriving takes: Node's
 * `requestTimeout` would bound the whole body, so that a large upload would need a fast line.
 *
 * The stall clock runs only while the server waits for the client: when a reader (storage
 * slower than the client) has paused the socket, the missing bytes are not the client's fault.
 * Progress is read from the socket's byte count, since listening for the body's data would
 * consume it.
 */
export class BodyIdleGuard {
  private readonly bodies = new Map<IncomingMessage, Progress>();
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly cut: (request: IncomingMessage, response: ServerResponse) => void,
  ) {}

  /** For the server's 'request' event: follows the request's body, if it has one, until it is whole. */
  readonly watch = (request: IncomingMessage, response: ServerResponse): void => {
    if (!hasBody(request)) return;
    this.bodies.set(request, { response, bytesRead: request.socket.bytesRead, movedAt: Date.now() });
    request.once('close', () => this.forget(request));
    this.ticker ??= setInterval(() => this.check(), Math.min(MAX_TICK_MS, this.idleMs / 2)).unref();
  };

  private check(): void {
    const now = Date.now();
    for (const [request, progress] of this.bodies) {
      const socket = request.socket;
      if (request.complete || socket.destroyed) {
        this.forget(request);
      } else if (socket.bytesRead !== progress.bytesRead || socket.isPaused()) {
        progress.bytesRead = socket.bytesRead;
        progress.movedAt = now;
      } else if (now - progress.movedAt >= this.idleMs) {
        this.forget(request);
        this.cut(request, progress.response);
      }
    }
  }

  private forget(request: IncomingMessage): void {
    this.bodies.delete(request);
    if (this.bodies.size === 0 && this.ticker !== undefined) {
      clearInterval(this.ticker);
      this.ticker = undefined;
    }
  }
}

/** RFC 9112 §6.3: a request has a body when it is chunked or declares a length above zero. */
function hasBody(request: IncomingMessage): boolean {
  if (request.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(request.headers['content-length'] ?? 0);
  return Number.isFinite(length) && length > 0;
}
