import assert from 'node:assert/strict';
import net from 'node:net';
import { CONTRACT_HEADERS } from './assertions.ts';

/** HTTP spoken on a bare socket, for requests Node's client will not send and answers it would hide. */

/** What comes back on a raw socket: the answer's text (if any) and whether the server closed it. */
export function rawExchange(
  port: number,
  send: (socket: net.Socket) => void,
  waitMs: number,
  /**
   * A client that never closes its side and keeps sending a byte every 100 ms, as a careless or
   * hostile one may: the server's FIN does not end it, and only a server that has closed the
   * socket outright answers those bytes with a reset, which closes it.
   */
  options: { neverCloses?: boolean } = {},
): Promise<{ text: string; closedAfterMs: number | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: options.neverCloses === true });
    const started = Date.now();
    let text = '';
    let closedAfterMs: number | undefined;
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('close', () => (closedAfterMs = Date.now() - started));
    socket.on('error', () => undefined);
    socket.on('connect', () => send(socket));
    const drip = options.neverCloses ? setInterval(() => socket.writable && socket.write('a'), 100) : undefined;
    socket.on('close', () => clearInterval(drip));
    setTimeout(() => {
      clearInterval(drip);
      socket.destroy();
      resolve({ text, closedAfterMs });
    }, waitMs);
    socket.on('timeout', reject);
  });
}

/** Status, headers (lowercase names) and JSON body of a raw HTTP/1.1 answer. */
export function parseRaw(text: string): { status: number; headers: Record<string, string>; body: any } {
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const name = line.slice(0, line.indexOf(':')).toLowerCase();
    const value = line.slice(line.indexOf(':') + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
}

export function assertRawProblem(text: string, status: number, code: string): void {
  const { status: got, headers, body } = parseRaw(text);
  assert.equal(got, status, text);
  assert.equal(headers['content-type'], 'application/problem+json');
  for (const [name, value] of Object.entries(CONTRACT_HEADERS)) assert.equal(headers[name.toLowerCase()], value, `header ${name}`);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.ok(String(body.detail).length > 10);
}
