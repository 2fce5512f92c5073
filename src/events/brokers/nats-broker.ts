import { JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { type ConnectionOptions, connect, headers, type NatsConnection } from '@nats-io/transport-node';
import {
  type BrokerLogger,
  checkPrefix,
  type EventBroker,
  eventAddress,
  type OutgoingEvent,
  publishError,
  redactedMessage,
  redactedUrl,
  SILENT_LOGGER,
  withTimeout,
} from './event-broker.ts';

const SETTING = 'EVENTS_NATS_URL';
export const DEFAULT_NATS_STREAM = 'WALLET_ADMIN_EVENTS';
// JetStream's stream names: no blank, '.', '*', '>', path separators or control characters.
const STREAM_NAME = /^[A-Za-z0-9_-]{1,255}$/;

export interface NatsBrokerOptions {
  /** nats://[user:pass@ or token@]host:port, or several comma-separated; tls:// for TLS. */
  url: string;
  /** The JetStream stream that stores the events (created when missing). */
  stream?: string;
  /** First tokens of every subject: the stream captures `${subjectPrefix}.>`. */
  subjectPrefix: string;
  logger?: BrokerLogger;
}

/**
 * Publishes each event to JetStream, so that it is stored before publish resolves (the PubAck).
 * Subject: `<prefix>.<tenantId>.<channelId or '_'>.<type>` (eventAddress). The message id is the
 * event's id: JetStream drops a second message with the same `Nats-Msg-Id` within the stream's
 * duplicate window, so a publish retried after a lost ack is stored once (past that window the
 * consumers' own deduplication by id takes over).
 *
 * Connects on the first publish, not at start-up, so an unreachable NATS delays nothing else; once
 * connected, the client reconnects forever on its own (publish rejects at its deadline meanwhile).
 * A connection that the client gives up on (it closes after repeated authentication failures) is
 * replaced at the next publish.
 */
export function openNatsBroker(options: NatsBrokerOptions): EventBroker {
  const { url } = options;
  const logger = options.logger ?? SILENT_LOGGER;
  const stream = options.stream ?? DEFAULT_NATS_STREAM;
  if (!STREAM_NAME.test(stream)) throw new Error(`NATS stream name ${JSON.stringify(stream)} must be 1–255 of [A-Za-z0-9_-]`);
  const prefix = checkPrefix(options.subjectPrefix);
  const connectionOptions = natsConnectionOptions(url);
  const where = { broker: 'nats', url: redactedUrl(url) };

  let connecting: Promise<NatsConnection> | undefined;
  // Set once the stream is known to exist on this connection; cleared after any failed publish, so
  // that a stream deleted behind our back is created again rather than failing every publish.
  let streamReady = false;
  let closed = false;

  const connection = (): Promise<NatsConnection> => {
    if (connecting !== undefined) return connecting;
    const attempt = connect(connectionOptions).then((nc) => {
      logger.info({ ...where, server: nc.getServer() }, 'Connected to NATS for event delivery');
      void watchStatus(nc);
      void nc.closed().then(() => {
        // Closed by close() or given up by the client: the next publish connects anew.
        if (connecting === attempt) connecting = undefined;
        streamReady = false;
      });
      return nc;
    });
    // A failed first connection is not kept: the next publish tries again.
    attempt.catch(() => {
      if (connecting === attempt) connecting = undefined;
    });
    connecting = attempt;
    return attempt;
  };

  // Transitions only (not every reconnection attempt): an outage is two lines, however long.
  const watchStatus = async (nc: NatsConnection) => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') logger.warn({ ...where, server: status.server }, 'NATS connection lost; reconnecting');
      else if (status.type === 'reconnect') logger.info({ ...where, server: status.server }, 'NATS connection restored');
      else if (status.type === 'error') logger.warn({ ...where, error: redactedMessage(status.error) }, 'NATS reported an error');
    }
  };

  const ensureStream = async (nc: NatsConnection, timeoutMs: number) => {
    if (streamReady) return;
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    try {
      // An existing stream is left as its operator configured it (retention, replicas, limits).
      await jsm.streams.info(stream);
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
      try {
        await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], storage: StorageType.File });
        logger.info({ ...where, stream, subjects: `${prefix}.>` }, 'Created the JetStream stream for events');
      } catch (addErr) {
        // Another instance may have created it in between: fine if it exists now.
        await jsm.streams.info(stream).catch(() => {
          throw addErr;
        });
      }
    }
    streamReady = true;
  };

  const send = async (event: OutgoingEvent, subject: string, timeoutMs: number) => {
    const nc = await connection();
    await ensureStream(nc, timeoutMs);
    const h = headers();
    h.set('Content-Type', 'application/json');
    h.set('wallet-admin-event-type', event.type);
    // expect.streamName: the ack must come from our stream, not from another that captures the subject.
    await jetstream(nc).publish(subject, new TextEncoder().encode(event.body), {
      msgID: event.id,
      headers: h,
      timeout: timeoutMs,
      expect: { streamName: stream },
    });
  };

  return {
    setting: SETTING,
    async publish(event, timeoutMs) {
      if (closed) throw publishError(SETTING, url, new Error('the broker is closed'));
      const subject = eventAddress(prefix, event);
      const work = send(event, subject, timeoutMs).catch((err: unknown) => {
        streamReady = false;
        throw publishError(SETTING, url, err);
      });
      await withTimeout(work, timeoutMs, () => publishError(SETTING, url, new Error(`no JetStream ack within ${timeoutMs} ms`)));
    },
    async close() {
      closed = true;
      const pending = connecting;
      connecting = undefined;
      const nc = await pending?.catch(() => undefined);
      await nc?.close();
    },
  };
}

/**
 * The client's options for a URL setting. The client takes no credentials inside a server URL, so
 * they are lifted out of it (user:pass → user and pass, a lone user → token) and the servers are
 * given as host:port. Reconnects forever, a second apart: an outage's end is noticed within about
 * a second, and one attempt a second costs the server nothing.
 */
export function natsConnectionOptions(url: string): ConnectionOptions {
  const servers: string[] = [];
  const options: ConnectionOptions = {
    name: 'wallet-admin events',
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    // The handshake of one attempt; publish has its own, shorter deadline.
    timeout: 10_000,
    // A server that stops answering pings is left after about a minute, not the default four.
    pingInterval: 20_000,
    maxPingOut: 3,
  };
  for (const one of url.split(',')) {
    const text = one.trim();
    let parsed: URL;
    try {
      parsed = new URL(text.includes('://') ? text : `nats://${text}`);
    } catch {
      // Not the URL's own error: Node's TypeError carries the whole input, password included.
      throw new Error(`${SETTING} is not a NATS URL: ${redactedUrl(text)}`);
    }
    if (!['nats:', 'tls:'].includes(parsed.protocol)) throw new Error(`${SETTING} must be nats:// or tls://, not ${parsed.protocol}//`);
    if (parsed.protocol === 'tls:') options.tls = {};
    if (parsed.password !== '') {
      options.user = decodeURIComponent(parsed.username);
      options.pass = decodeURIComponent(parsed.password);
    } else if (parsed.username !== '') options.token = decodeURIComponent(parsed.username);
    servers.push(`${parsed.hostname}:${parsed.port || '4222'}`);
  }
  options.servers = servers;
  return options;
}
