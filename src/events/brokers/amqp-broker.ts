import { type ChannelModel, type ConfirmChannel, connect } from 'amqplib';
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
  settleWithin,
  withTimeout,
} from './event-broker.ts';

const SETTING = 'EVENTS_AMQP_URL';
export const DEFAULT_AMQP_EXCHANGE = 'wallet-admin.events';
// AMQP 0-9-1 exchange names (RabbitMQ takes these characters, at most 255 bytes).
const EXCHANGE_NAME = /^[A-Za-z0-9_.:-]{1,255}$/;
// One connection attempt (TCP and the AMQP handshake); publish has its own, usually shorter, deadline
// and an attempt still under way when it passes serves the next publish.
const CONNECT_TIMEOUT_MS = 10_000;
// A close waits for the broker's close-ok: not for ever on a connection that went half-open.
const CLOSE_WAIT_MS = 2000;

export interface AmqpBrokerOptions {
  /** amqp://user:pass@host:port/vhost (or amqps://). */
  url: string;
  /** The durable topic exchange the events are published to (declared when missing). */
  exchange?: string;
  /** First tokens of every routing key (the same dotted form as NATS subjects). */
  routingKeyPrefix: string;
  logger?: BrokerLogger;
}

interface Link {
  model: ChannelModel;
  channel: ConfirmChannel;
  /** Forgets the link (the next publish opens another) and closes its connection. */
  drop(reason: string): void;
}

/**
 * Publishes each event to a durable topic exchange on a confirm channel: publish resolves on the
 * broker's confirm, which for a persistent message routed to durable queues comes once they have
 * it on disk. Routing key: `<prefix>.<tenantId>.<channelId or '_'>.<type>` (eventAddress), so
 * queues bind by tenant, channel or type with '*' and '#'. An event that no queue's binding
 * matches is dropped by RabbitMQ after the confirm (as any topic exchange does): `mandatory` is
 * not set, since one unbound tenant would otherwise stall the delivery of all the others; bind a
 * catch-all queue or an alternate exchange to keep those.
 *
 * One connection and one channel, opened by the first publish. When either dies (the broker
 * restarts, the network drops, a confirm does not come in time), it is dropped and the next
 * publish opens a new one: amqplib's own recovery would make publish wait for a connection
 * instead of failing at its deadline. Every connection and channel has 'error' listeners: amqplib
 * emits 'error' when a connection fails, and an 'error' without a listener would end the process.
 */
export function openAmqpBroker(options: AmqpBrokerOptions): EventBroker {
  const { url } = options;
  const logger = options.logger ?? SILENT_LOGGER;
  const exchange = options.exchange ?? DEFAULT_AMQP_EXCHANGE;
  if (!EXCHANGE_NAME.test(exchange)) throw new Error(`AMQP exchange name ${JSON.stringify(exchange)} must be 1–255 of [A-Za-z0-9_.:-]`);
  const prefix = checkPrefix(options.routingKeyPrefix);
  const where = { broker: 'amqp', url: redactedUrl(url), exchange };

  let linking: Promise<Link> | undefined;
  let closed = false;

  const link = (): Promise<Link> => {
    if (linking !== undefined) return linking;
    const attempt: Promise<Link> = openLink(() => {
      if (linking === attempt) linking = undefined;
    });
    linking = attempt;
    attempt.catch(() => {
      if (linking === attempt) linking = undefined;
    });
    return attempt;
  };

  /** A connection and confirm channel, with the exchange declared; `forget` runs once either is gone. */
  const openLink = async (forget: () => void): Promise<Link> => {
    const model = await connect(url, { timeout: CONNECT_TIMEOUT_MS, clientProperties: { connection_name: 'wallet-admin events' } });
    let lastError: string | undefined;
    let lost = false;
    const lose = (reason: string) => {
      if (lost) return;
      lost = true;
      forget();
      if (!closed) logger.warn({ ...where, error: reason }, 'AMQP connection for event delivery lost; the next publish reconnects');
      model.close().catch(() => undefined); // already closed, or closing: nothing to add
    };
    model.on('error', (err: Error) => {
      lastError = redactedMessage(err);
    });
    model.on('close', () => lose(lastError ?? 'closed by the broker'));
    // A broker short of memory or disk blocks publishers: confirms stop coming and publishes time out.
    model.on('blocked', (reason: string) => logger.warn({ ...where, reason }, 'RabbitMQ blocked event publishing'));
    model.on('unblocked', () => logger.info(where, 'RabbitMQ unblocked event publishing'));
    try {
      const channel = await model.createConfirmChannel();
      let channelError: string | undefined;
      channel.on('error', (err: Error) => {
        channelError = redactedMessage(err);
      });
      // A channel the broker closed (an exchange deleted under it, a refused publish) takes its connection along.
      channel.on('close', () => lose(channelError ?? lastError ?? 'channel closed by the broker'));
      await channel.assertExchange(exchange, 'topic', { durable: true });
      logger.info(where, 'Connected to AMQP for event delivery');
      return { model, channel, drop: lose };
    } catch (err) {
      lose(redactedMessage(err));
      throw err;
    }
  };

  const confirmed = (l: Link, event: OutgoingEvent, routingKey: string) =>
    new Promise<void>((resolve, reject) => {
      l.channel.publish(
        exchange,
        routingKey,
        Buffer.from(event.body, 'utf8'),
        {
          persistent: true,
          messageId: event.id,
          type: event.type,
          contentType: 'application/json',
          appId: 'wallet-admin',
          headers: { 'wallet-admin-event-type': event.type },
        },
        (err: unknown) => (err ? reject(err) : resolve()),
      );
    });

  return {
    setting: SETTING,
    async publish(event, timeoutMs) {
      if (closed) throw publishError(SETTING, url, new Error('the broker is closed'));
      const routingKey = eventAddress(prefix, event);
      let waitingOn: Link | undefined;
      const work = (async () => {
        const l = await link();
        waitingOn = l;
        await confirmed(l, event, routingKey);
      })().catch((err: unknown) => {
        throw publishError(SETTING, url, err);
      });
      await withTimeout(
        work,
        timeoutMs,
        () => publishError(SETTING, url, new Error(`no publisher confirm within ${timeoutMs} ms`)),
        // A connection that took the message but gave no confirm in time may be half-open (no reset
        // came, and its close would wait as long): it is forgotten at once and the next publish
        // starts on a new one. The caller's retry carries the same message id, so a confirm that
        // was only late leaves a duplicate that consumers drop.
        () => waitingOn?.drop(`no publisher confirm within ${timeoutMs} ms`),
      );
    },
    async close() {
      closed = true;
      const pending = linking;
      linking = undefined;
      const l = await pending?.catch(() => undefined);
      if (l !== undefined) await settleWithin(l.model.close(), CLOSE_WAIT_MS);
    },
  };
}
