import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors/app-error.ts';

/**
 * What Node's HTTP server would otherwise get wrong at the edge of HTTP/1.1, checked before any
 * route. The server is built with `requireHostHeader: false` so that a missing Host reaches this
 * hook and is refused in the one error format, not with Node's bare 400.
 */
async function httpFraming(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    // RFC 9112 §3.2; HTTP/1.0 has no Host requirement. Links this service writes name its own
    // host, so a request without one could not be answered correctly anyway.
    if (raw.headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor >= 1) {
      done(new AppError('HTTP_MALFORMED', 'An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)'));
      return;
    }
    // Node's parser reads nothing more on a connection once a request asked for an upgrade, even
    // one the server does not take; keeping the connection alive would leave the client's next
    // request unanswered. The request itself is answered as usual.
    if (raw.headers.upgrade !== undefined) reply.header('Connection', 'close');
    done();
  });
}

export default fp(httpFraming, { name: 'http-framing' });
