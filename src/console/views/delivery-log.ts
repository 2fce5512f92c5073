import { useEffect, useRef, useState } from 'preact/hooks';
import type { Page, WalletAdminClient, WebhookDelivery, WebhookDeliveryStatus } from '../../client/index.ts';

/** Deliveries asked for at a time: the first page, and each "Load more". */
const PAGE_SIZE = 25;

export interface DeliveryLog {
  /** Newest first; undefined until the first page came. */
  items: WebhookDelivery[] | undefined;
  /** The cursor of the next older page; null once every delivery is shown. */
  next: string | null;
  /** The last request's failure, until one succeeds. */
  error: unknown;
  loadingMore: boolean;
  /** Appends the next older page. */
  more(): void;
  /** Asks for the newest page again and merges it in: settles once shown. */
  refresh(): Promise<void>;
  /** One row as an action answered it (a retry), in its place. */
  replace(delivery: WebhookDelivery): void;
}

interface Shown {
  /** The webhook and filter the rows are of: another's are never shown, not even in the render before its own are asked for. */
  of: string;
  items?: WebhookDelivery[];
  next: string | null;
  error?: unknown;
  loadingMore: boolean;
}

/**
 * A webhook's delivery log, grown a page at a time ("Load more") rather than paged: a log is read
 * from its newest end, and a refresh brings new deliveries in on top while the older pages already
 * loaded stay where the admin is reading. `status` filters it; another filter starts afresh, and
 * an answer for the previous one is dropped.
 */
export function useDeliveryLog(
  client: WalletAdminClient,
  webhookId: string,
  status: WebhookDeliveryStatus | undefined,
  noticeError: (error: unknown) => void,
): DeliveryLog {
  const of = `${webhookId}\n${status ?? ''}`;
  const [state, setState] = useState<Shown>({ of, next: null, loadingMore: false });
  const shown: Shown = state.of === of ? state : { of, next: null, loadingMore: false };
  /** Raised by each new filter: what an older one asked for is no longer shown. */
  const filter = useRef(0);
  const load = (cursor: string | undefined) => client.listWebhookDeliveries(webhookId, { limit: PAGE_SIZE, cursor, status });
  const failed = (asked: number) => (error: unknown) => {
    noticeError(error);
    if (asked === filter.current) setState((now) => ({ ...now, error, loadingMore: false }));
  };

  useEffect(() => {
    const asked = ++filter.current;
    setState({ of, next: null, loadingMore: false });
    load(undefined).then((page) => {
      if (asked === filter.current) setState({ of, items: page.items, next: page.next, loadingMore: false });
    }, failed(asked));
  }, [of]);

  return {
    items: shown.items,
    next: shown.next,
    error: shown.error,
    loadingMore: shown.loadingMore,
    more() {
      const { next } = shown;
      if (next === null || shown.loadingMore) return;
      const asked = filter.current;
      setState((now) => ({ ...now, loadingMore: true }));
      load(next).then((page) => {
        if (asked !== filter.current) return;
        setState((now) => ({ ...now, items: appended(now.items ?? [], page.items), next: page.next, loadingMore: false }));
      }, failed(asked));
    },
    refresh() {
      const asked = filter.current;
      return load(undefined).then((page) => {
        if (asked !== filter.current) return;
        setState((now) => ({ of: now.of, ...merged(now, page), loadingMore: now.loadingMore }));
      }, failed(asked));
    },
    replace(delivery) {
      setState((now) => ({ ...now, items: now.items?.map((item) => (item.id === delivery.id ? delivery : item)) }));
    },
  };
}

/** An older page after the rows shown, without a row twice (one may have moved pages meanwhile). */
function appended(items: WebhookDelivery[], older: WebhookDelivery[]): WebhookDelivery[] {
  const ids = new Set(items.map((item) => item.id));
  return [...items, ...older.filter((item) => !ids.has(item.id))];
}

/**
 * The log once the newest page came again. That page is the truth from its oldest row up (new
 * deliveries, and rows whose status changed or no longer match the filter); the older rows loaded
 * before stay below it, with the cursor that continues after them. Ids are in time order (dlv_…),
 * as the service pages by them.
 */
function merged(shown: Shown, first: Page<WebhookDelivery>): Pick<Shown, 'items' | 'next'> {
  const oldest = first.items[first.items.length - 1];
  if (first.next === null || oldest === undefined) return { items: first.items, next: first.next };
  const older = (shown.items ?? []).filter((item) => item.id < oldest.id);
  return older.length > 0 ? { items: [...first.items, ...older], next: shown.next } : { items: first.items, next: first.next };
}
