import type { FastifyRequest } from 'fastify';

/**
 * The client's address: the socket's peer, or X-Forwarded-For's client when the peer is in
 * TRUST_PROXY. Undefined once the connection is gone (a client that hung up, a connection closed
 * by a limit), where Fastify's `request.ip` would throw — from a log line, out of any handler.
 */
export function clientAddress(request: FastifyRequest): string | undefined {
  return request.raw.socket ? request.ip : undefined;
}
