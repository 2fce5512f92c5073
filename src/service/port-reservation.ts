import { createServer, type Server } from 'node:net';

/** How many ports above a taken one are tried for one to suggest. */
const SUGGESTION_TRIES = 10;

/**
 * The service's port is taken. The message says which, and how to start anyway: with PORT set to a
 * port free at that moment, given to `npm start` and to the CLI (which signs for PORT too).
 */
export class PortInUseError extends Error {
  /** What happened, then what to do: the CLI prints each on a line of its own. */
  readonly lines: readonly string[];

  constructor(host: string, port: number, free: number | undefined, nothingWritten: boolean) {
    const suggested = free ?? port + 1;
    const lines = [
      `port ${port} on ${host} is in use: another program (or another wallet-admin) listens there.` +
        `${nothingWritten ? ' Nothing was started and nothing was written.' : ''}`,
      `Stop that program, or start on another port, e.g. PORT=${suggested} npm start` +
        `${free === undefined ? '' : ` (${free} is free now)`}, and give the CLI the same PORT ` +
        `(export PORT=${suggested}) so that wallet-admin sign signs for that service.`,
    ];
    super(lines.join('\n'));
    this.name = 'PortInUseError';
    this.lines = lines;
  }
}

/** The port held from before the service writes anything until it listens there itself. */
export interface PortReservation {
  /** Lets the port go, so that the service can listen on it; once, however often it is called. */
  release(): Promise<void>;
}

/**
 * Takes HOST:PORT before anything else happens, so that a port in use stops a start before it
 * opens DATA_DIR or seeds the demo (PortInUseError), and no other program takes the port while
 * the start prepares. Connections made meanwhile are closed at once (as a port nobody listens on
 * would refuse them). PORT=0 (any free port) holds nothing.
 */
export async function reservePort(host: string, port: number): Promise<PortReservation> {
  if (port === 0) return { release: async () => {} };
  const server = createServer({ pauseOnConnect: true }, (socket) => socket.destroy());
  try {
    await listen(server, host, port);
  } catch (error) {
    if (isAddressInUse(error)) throw new PortInUseError(host, port, await freePortAbove(host, port), true);
    throw error;
  }
  // Never what keeps the process alive: a start that fails releases it anyway.
  server.unref();
  let released: Promise<void> | undefined;
  return {
    release: () => (released ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}

export function isAddressInUse(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The first of the next few ports above `port` that can be listened on now, if any. */
async function freePortAbove(host: string, port: number): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(port + SUGGESTION_TRIES, 65535); candidate++) {
    const probe = createServer();
    try {
      await listen(probe, host, candidate);
      await new Promise<void>((resolve) => probe.close(() => resolve()));
      return candidate;
    } catch {
      // taken too (or not ours to take): try the next
    }
  }
  return undefined;
}
