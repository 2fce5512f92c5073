import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { RequestLine } from '../../logging/logger.ts';
import { clientAddress } from './client-address.ts';

/**
 * One log line per answered request, instead of Fastify's two (received + completed), with flat
 * fields: at full load the second line and the nested request/response objects were a measurable
 * share of the service's time (bench: auth-warm). A completed request's line goes through
 * `writeLine` (built directly: see requestLineWriter); an errored one through the request's
 * logger, with its error. Fastify's other lines (stream errors, writeHead failures, requests while
 * closing) stay as they are.
 */
export class RequestLog extends LogController {
  constructor(private readonly writeLine: ((line: RequestLine) => void) | undefined) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // The request's own logger adds its reqId.
    const fields: Omit<RequestLine, 'reqId'> = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      remoteAddress: clientAddress(request),
    };
    if (error) reply.log.error({ ...fields, err: error }, 'request errored');
    else if (this.writeLine) this.writeLine({ reqId: request.id, ...fields });
    else reply.log.info(fields, 'request completed');
  }
}
