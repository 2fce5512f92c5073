import { useEffect, useState } from 'preact/hooks';
import type { CreatedWebhook } from '../../client/index.ts';
import { hrefOf, navigate } from '../routing.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import type { ViewContext } from './context.ts';
import { AddWebhookForm } from './webhook-form.tsx';
import { type RevealedSecret, WebhookPage } from './webhook-page.tsx';
import { Behind, EventFilters, LastDelivery, WebhookState } from './webhook-parts.tsx';

/**
 * The tenant's webhooks (webhooks:manage, docs/events.md): the list and adding one, or one
 * webhook's page (`id`). A secret the service answers once goes along to its webhook's page, and
 * is forgotten when the admin leaves it.
 */
export function WebhooksView({ ctx, id }: { ctx: ViewContext; id: string | undefined }) {
  const [revealed, setRevealed] = useState<RevealedSecret>();
  const announceAfterMove = useAnnounceAfterMove(ctx, id);
  useEffect(() => {
    if (revealed && revealed.webhookId !== id) setRevealed(undefined);
  }, [id]);

  if (id !== undefined) {
    return (
      <WebhookPage
        key={id}
        ctx={ctx}
        id={id}
        revealed={revealed?.webhookId === id ? revealed : undefined}
        onReveal={setRevealed}
        onDeleted={(webhook) => {
          announceAfterMove(`The webhook to ${webhook.url} is deleted: it gets no more events.`);
          navigate({ view: 'webhooks' });
        }}
      />
    );
  }
  return (
    <WebhookList
      ctx={ctx}
      onCreated={(created: CreatedWebhook) => {
        setRevealed({ webhookId: created.id, secret: created.secret });
        navigate({ view: 'webhooks', id: created.id });
      }}
    />
  );
}

/**
 * Says `message` in the status line once the view moved to another webhook or the list: the status
 * line speaks of the view it was said on, so it is said after the move, not before.
 */
function useAnnounceAfterMove(ctx: ViewContext, id: string | undefined): (message: string) => void {
  const [toSay, setToSay] = useState<string>();
  useEffect(() => {
    if (toSay === undefined) return;
    ctx.announce(toSay);
    setToSay(undefined);
  }, [id]);
  return setToSay;
}

function WebhookList({ ctx, onCreated }: { ctx: ViewContext; onCreated(created: CreatedWebhook): void }) {
  const webhooks = usePagedLoad((cursor) => ctx.client.listWebhooks({ limit: 50, cursor }), 'webhooks');
  return (
    <>
      <section class="card" aria-labelledby="webhooks-title">
        <h1 id="webhooks-title">Webhooks</h1>
        <p class="muted">
          A webhook posts the tenant's events (uploads, restores, backups, admins' changes…) to a URL as they happen, each signed with its
          secret, at least once and in order per channel. Open one for its delivery log, a test event, pausing it or a new secret.
        </p>
        <ProblemNotice error={webhooks.error} />
        <PagedTable
          list={webhooks}
          label="Webhooks"
          empty={<p>No webhook yet: add one below.</p>}
          loading="Loading webhooks…"
          class="webhooks-table stacked-table"
          rowKey={(webhook) => webhook.id}
          columns={[
            {
              header: 'URL',
              rowHeader: true,
              cellClass: 'name-cell',
              cell: (webhook) => (
                <>
                  <a href={hrefOf({ view: 'webhooks', id: webhook.id })}>{webhook.url}</a>
                  <code class="muted block">{webhook.id}</code>
                </>
              ),
            },
            { header: 'Events', cell: (webhook) => <EventFilters webhook={webhook} channelName={ctx.channelName} /> },
            { header: 'State', cell: (webhook) => <WebhookState webhook={webhook} /> },
            { header: 'Last delivery', cell: (webhook) => <LastDelivery webhook={webhook} /> },
            { header: 'Behind', cell: (webhook) => <Behind webhook={webhook} /> },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="add-webhook-title">
        <h2 id="add-webhook-title">Add a webhook</h2>
        <AddWebhookForm ctx={ctx} onCreated={onCreated} />
      </section>
    </>
  );
}
