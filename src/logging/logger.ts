import os from 'node:os';
import pino from 'pino';
import { BatchedOutput } from './batched-output.ts';

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
/** Query parameters that are credentials, by their decoded name: a signed link's signature stands in for the wallet. */
const CREDENTIAL_PARAMETERS = new Set(['signature']);
/** A letter of "signature" written as is, or any escape: what a query must hold for a parameter name to decode to it. */
const MAY_NAME_A_CREDENTIAL = /signature|%/i;

/**
 * A request target with its credentials redacted: a signed link's `signature=` authenticates a
 * download until it expires, so a log line holding it would hand the file to whoever reads the log.
 * Parameters are judged by their name as the router decodes it (`%73ignature` is `signature` to
 * Fastify's query parser, `+` a blank), in any letter case, so no spelling that the route accepts
 * as the signature reaches the log; the name stays as it was sent. A further '?' in the query
 * (`/f??signature=…`, `/f?x=1?signature=…`) is part of a name or value to the router, but whoever
 * reads the line (a person, a log search) sees a `signature=` there and may try its value: so what
 * follows a '?' is judged as a parameter too. A censored value runs to the next '&', as the
 * router reads it, whatever '?' it holds.
 */
export function censorUrl(target: string): string {
  const url = censorInvitationToken(target);
  const query = url.indexOf('?');
  // The searches first: nearly every URL has no query, or none that could name a credential.
  if (query === -1 || !MAY_NAME_A_CREDENTIAL.test(url.slice(query + 1))) return url;
  const parameters = url.slice(query + 1).split('&');
  for (let i = 0; i < parameters.length; i++) parameters[i] = censorParameter(parameters[i]!);
  return `${url.slice(0, query + 1)}${parameters.join('&')}`;
}

/** An invitation's token accepts it (POST /api/invitations/{token}/accept): like a signature, it never reaches a log. */
const INVITATION_ACCEPT = /^(\/api\/invitations\/)([^/?#]+)(\/accept)/i;

function censorInvitationToken(url: string): string {
  return INVITATION_ACCEPT.test(url) ? url.replace(INVITATION_ACCEPT, `$1${CENSORED}$3`) : url;
}

/** One '&'-separated parameter, its value censored from the first name (its own, or one after a '?') that is a credential's. */
function censorParameter(parameter: string): string {
  let start = 0;
  while (start <= parameter.length) {
    const next = parameter.indexOf('?', start);
    const end = next === -1 ? parameter.length : next;
    const equals = parameter.indexOf('=', start);
    if (equals !== -1 && equals < end && CREDENTIAL_PARAMETERS.has(decodedName(parameter.slice(start, equals)))) {
      return `${parameter.slice(0, equals + 1)}${CENSORED}`;
    }
    start = end + 1;
  }
  return parameter;
}

/** A query parameter's name as a query parser reads it, lowercase; as sent when its escapes are broken. */
function decodedName(name: string): string {
  const spaced = name.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced).toLowerCase();
  } catch {
    return spaced.toLowerCase();
  }
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

/** What the one line of an answered request holds (see http/server/request-log.ts). */
export interface RequestLine {
  reqId: string;
  method: string;
  url: string;
  statusCode: number;
  responseTime: number;
  remoteAddress: string | undefined;
}

const { hostname } = os;
const BASE = `"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

/**
 * The writer of `logger`'s "request completed" lines (undefined for a logger that is not pino's): each line as
 * pino would write it (level, time, pid, hostname, the request's fields, msg), built here without
 * a child logger and a generic serialization, which took most of a request's logging cost (bench:
 * auth-warm). The URL is censored as every logged URL is. Written to the logger's own destination,
 * so the lines keep their order with every other line.
 */
export function requestLineWriter(logger: Logger): ((line: RequestLine) => void) | undefined {
  const destination = (logger as unknown as Record<symbol, { write(line: string): unknown } | undefined>)[pino.symbols.streamSym];
  if (destination === undefined || !('isLevelEnabled' in logger)) return undefined;
  const pinoLogger = logger as pino.Logger;
  return (line) => {
    if (!pinoLogger.isLevelEnabled('info')) return;
    // reqId (ours: a UUID) and the method (one Node's parser knows) need no JSON escaping; the URL and
    // the address (which X-Forwarded-For may carry through a trusted proxy) do.
    const address = line.remoteAddress === undefined ? '' : `,"remoteAddress":${JSON.stringify(line.remoteAddress)}`;
    destination.write(
      `{"level":30,"time":${Date.now()},${BASE},"reqId":"${line.reqId}","method":"${line.method}",` +
        `"url":${JSON.stringify(censorUrl(line.url))},"statusCode":${line.statusCode},"responseTime":${line.responseTime}${address},` +
        `"msg":"request completed"}\n`,
    );
  };
}

/** Standard output, in batches (see BatchedOutput); what is pending is written when the process exits. */
function standardOutput(): BatchedOutput {
  const output = new BatchedOutput(1);
  process.once('exit', () => output.flushSync());
  return output;
}
