import pino from 'pino';

/**
 * What the code below the composition roots logs through: a line with its details, at warn or
 * error. pino's logger is one; so is a two-function stand-in where pino is not at hand.
 */
export interface Logger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

const CENSORED = '[redacted]';
const CREDENTIAL_HEADERS = ['x-sig', 'x-mes', 'authorization'];
/** Query parameters that are credentials: a signed link's signature stands in for the wallet. */
const CREDENTIAL_PARAMETER = /([?&]signature=)[^&#]*/gi;

/**
 * A request target with its credentials redacted: a signed link's `signature=` authenticates a
 * download until it expires, so a log line holding it would hand the file to whoever reads the log.
 */
export function censorUrl(url: string): string {
  return url.replace(CREDENTIAL_PARAMETER, `$1${CENSORED}`);
}

/** A copy of a headers object without credential values (signatures, signed messages, bearer tokens). */
function censorHeaders(headers: unknown): unknown {
  if (headers === null || typeof headers !== 'object') return headers;
  const copy: Record<string, unknown> = { ...(headers as Record<string, unknown>) };
  for (const name of Object.keys(copy)) if (CREDENTIAL_HEADERS.includes(name.toLowerCase())) copy[name] = CENSORED;
  return copy;
}

/** A request as Fastify logs it on its own lines (errors, requests while closing), without credentials. */
function censorRequest(req: unknown): unknown {
  if (req === null || typeof req !== 'object') return req;
  const copy: Record<string, unknown> = { ...(req as Record<string, unknown>) };
  if ('headers' in copy) copy.headers = censorHeaders(copy.headers);
  if (typeof copy.url === 'string') copy.url = censorUrl(copy.url);
  return copy;
}

/**
 * An error as pino serializes it, but a Redis client's failed command without its arguments:
 * ioredis attaches `command: {name, args}` to a refused reply, and a refused sign-in to Redis is
 * `HELLO 3 AUTH <user> <password>`, logged at every reconnection.
 */
function censorError(err: unknown): unknown {
  const serialized = pino.stdSerializers.err(err as Error) as unknown;
  if (serialized === null || typeof serialized !== 'object' || !('command' in serialized)) return serialized;
  const command = serialized.command as { name?: unknown } | null;
  return { ...serialized, command: { name: command?.name, args: CENSORED } };
}

/**
 * JSON logs. Credentials never reach them: the request lines carry no headers and their URLs no
 * link signature, and anything that logs a headers object, a request, a URL, a private key or a
 * failed Redis command gets them censored. Serializers rather than pino's path redaction, which
 * clones part of every line logged — at one line per request a measurable cost (bench: auth-warm)
 * — where a serializer runs only when its key is there.
 */
export function createLogger(level: string, destination: pino.DestinationStream = standardOutput()): pino.Logger {
  return pino(
    {
      level,
      serializers: {
        headers: censorHeaders,
        req: censorRequest,
        url: (url: unknown) => (typeof url === 'string' ? censorUrl(url) : url),
        privateKey: () => CENSORED,
        err: censorError,
      },
    },
    destination,
  );
}

/**
 * Standard output, written asynchronously in batches: a busy service makes one write call per
 * 4 KiB of lines rather than one per line (bench: auth-warm), and a quiet one still shows each line
 * within 250 ms. pino flushes what is pending when the process exits; a SIGKILL can lose at most
 * that last batch.
 */
function standardOutput(): pino.DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 250 });
}
