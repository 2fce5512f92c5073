import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode } from '../../errors/app-error.ts';
import { PROBLEM_CONTENT_TYPE } from '../schemas/problem.ts';
import { ALLOWED_METHODS } from './cors-headers.ts';

/** Node's codes for requests it could not read, with ours. */
const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'HEADERS_TOO_LARGE', detail: 'The request line and headers are larger than MAX_HEADER_BYTES allows' },
  // Node's requestTimeout is off (bodies have BODY_IDLE_TIMEOUT): only the head has a deadline.
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'REQUEST_TIMEOUT', detail: 'The request line and headers did not arrive within REQUEST_TIMEOUT' },
};

/** The headers every answer carries (response-headers.ts's baseHeaders), for answers no Fastify request owns. */
type BaseHeaders = Record<string, string | string[]>;

/** The answers given outside Fastify's request cycle, each with `headers` and the one error format. */
export function clientErrorAnswers(headers: BaseHeaders) {
  return {
    answerClientError: (error: Error & { code?: string }, socket: Socket) => answerClientError(headers, error, socket),
    answerStalledBody: (request: IncomingMessage, response: ServerResponse) => answerStalledBody(headers, request, response),
    answerConnect: (request: IncomingMessage, socket: Socket) => answerConnect(headers, request, socket),
    answerUnmetExpectation: (request: IncomingMessage, response: ServerResponse) => answerUnmetExpectation(headers, request, response),
  };
}

/**
 * Answers a request that Node's HTTP parser refused before Fastify saw it (oversized headers, a
 * request that took too long to arrive, malformed HTTP), in the one error format and with the
 * headers every answer carries, instead of Fastify's plain JSON 400. There is no route and no
 * readable path, so the problem has no `instance`.
 */
function answerClientError(headers: BaseHeaders, error: Error & { code?: string }, socket: Socket): void {
  // With this listener the socket is ours: one that cannot be answered is destroyed, as Node's
  // default does. An answer already begun on it cannot be followed by a problem (its client would
  // read the problem as the rest of that answer).
  const answerBegun = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || !socket.writable || answerBegun) {
    socket.destroy();
    return;
  }
  const known = error.code ? CLIENT_ERRORS[error.code] : undefined;
  writeProblem(
    headers,
    socket,
    new AppError(
      known?.code ?? 'HTTP_MALFORMED',
      known?.detail ?? `The request is not well-formed HTTP/1.1 (${error.code ?? 'parse error'})`,
    ),
  );
  closeSoon(socket);
}

/**
 * A request body that has stopped arriving for BODY_IDLE_TIMEOUT: answered 408 in the one format
 * when no answer has begun, and the connection closed either way. Closing aborts the request
 * stream, so whatever was reading it (an upload) fails now and keeps nothing, instead of waiting
 * for a client that may never send or close.
 */
function answerStalledBody(headers: BaseHeaders, request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  // A pipelined request's response waits for the socket until the earlier ones are written.
  const answerable = response.socket === socket && !response.headersSent && socket.writable;
  if (!answerable) {
    socket.destroy();
    return;
  }
  writeProblem(headers, socket, new AppError('REQUEST_TIMEOUT', 'The request body stopped arriving for longer than BODY_IDLE_TIMEOUT'));
  socket.once('finish', () => socket.destroy());
}

/**
 * A CONNECT (a tunnel request, which Node hands to no route): without this listener Node closes
 * the connection without a word. This service is no proxy; the answer says so, in the one format.
 */
function answerConnect(headers: BaseHeaders, _request: IncomingMessage, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  writeProblem(headers, socket, new AppError('METHOD_NOT_ALLOWED', 'CONNECT is not served: this service opens no tunnels'), {
    Allow: ALLOWED_METHODS.join(', '),
  });
  closeSoon(socket);
}

/** Writes a whole HTTP answer on a socket no Fastify request owns, then closes it. */
function writeProblem(base: BaseHeaders, socket: Socket, error: AppError, extraHeaders: Record<string, string> = {}): void {
  const body = problemBody(error, undefined);
  const headers = {
    ...base,
    ...extraHeaders,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  };
  const lines = Object.entries(headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${name}: ${v}`));
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** How long a refused connection's client has, once its answer is flushed, before the socket is cut. */
const REFUSED_LINGER_MS = 1000;

/**
 * Node manages neither a CONNECT's socket nor one whose request its parser refused: ended, such a
 * socket stays half-open until its peer closes, which a peer need never do, and every open socket
 * holds the server's close (closeAllConnections does not reach it). Found by the fuzz suite: a
 * CONNECT with a body held a shutdown for an hour, its socket paused and never reading its peer's
 * end. What still arrives is read and dropped, so that the peer is not reset before it reads the
 * answer; the socket goes when the peer ends or REFUSED_LINGER_MS after the answer is flushed.
 */
function closeSoon(socket: Socket): void {
  socket.resume();
  socket.once('end', () => socket.destroy());
  socket.once('finish', () => setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref());
}

/**
 * A request with an `Expect` the server does not meet (anything but 100-continue, which Node
 * handles): Node would answer 417 itself, bare, without the contract's headers (found by the fuzz
 * suite); this answers it in the one error format. The request is not processed.
 */
function answerUnmetExpectation(headers: BaseHeaders, request: IncomingMessage, response: ServerResponse): void {
  const error = new AppError(
    'EXPECTATION_FAILED',
    `This server meets no "Expect: ${String(request.headers.expect).slice(0, 100)}"; send the request without it`,
  );
  const body = problemBody(error, (request.url ?? '/').split('?')[0]);
  response.writeHead(error.status, {
    ...headers,
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  });
  response.end(body);
}

/** The one error format, for answers written before Fastify has a request (no route, maybe no path). */
function problemBody(error: AppError, instance: string | undefined): string {
  return JSON.stringify({
    type: 'about:blank',
    title: STATUS_CODES[error.status] ?? 'Error',
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(instance === undefined ? {} : { instance }),
    requestId: randomUUID(),
  });
}
