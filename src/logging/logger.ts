import pino, { type Logger } from 'pino';

/**
 * JSON logs. Credentials never reach them: Fastify's request serializer logs no headers, and
 * these paths are censored in case anything logs a request or headers object directly.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: [
          'req.headers["x-sig"]', 'req.headers["x-mes"]', 'req.headers.authorization',
          'headers["x-sig"]', 'headers["x-mes"]', 'privateKey',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
