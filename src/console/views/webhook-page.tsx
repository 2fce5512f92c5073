import { useEffect, useRef, useState } from 'preact/hooks';
import { HeldForApproval, type RotatedWebhookSecret, type Webhook, type WebhookTestResult } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { SecretBox } from '../ui/secret-box.tsx';
import { Time } from '../ui/time.tsx';
import { useAction } from '../ui/use-action.ts';
import { useEvery } from '../ui/use-every.ts';
import { useLoad } from '../ui/use-load.ts';
import { AdminName } from './admin-name.tsx';
import { useAdminNames } from './admin-names.ts';
import type { ViewContext } from './context.ts';
import { DeliveriesCard } from './webhook-deliveries.tsx';
import { DeleteWebhookDialog, RotateSecretDialog } from './webhook-dialogs.tsx';
import { Behind, EventFilters, LastDelivery, WebhookState } from './webhook-parts.tsx';

/** How often the page asks again how the webhook and its deliveries stand. */
const FOLLOW_MS = 4000;
/**
 * No asking on its own once the signature is this close to running out: a renewal asks the admin
 * to sign again, which only the admin's own action should bring about.
 */
const RENEWAL_MARGIN_MS = 2 * 60_000;

/** A secret the service answered once: a new webhook's, or a rotation's with how long the old one still signs. */
export interface RevealedSecret {
  webhookId: string;
  secret: string;
  previousValidUntil?: string;
}

interface WebhookPageProps {
  ctx: ViewContext;
  id: string;
  revealed: RevealedSecret | undefined;
  onReveal(revealed: RevealedSecret | undefined): void;
  onDeleted(webhook: Webhook): void;
}

/** One webhook: what it takes and how it stands, pausing, testing, rotating and deleting it, and its delivery log. */
export function WebhookPage({ ctx, id, revealed, onReveal, onDeleted }: WebhookPageProps) {
  const loaded = useLoad(() => ctx.client.getWebhook(id), id);
  // What was last read stays shown while a refresh fails (its problem is said above it).
  const lastRead = useRef<Webhook | undefined>(undefined);
  if (loaded.data) lastRead.current = loaded.data;
  const webhook = lastRead.current;
  /** Raised to have the delivery log ask for its newest deliveries again. */
  const [round, setRound] = useState(0);
  const follow = () => {
    void loaded.reload();
    setRound((n) => n + 1);
  };
  useEvery(FOLLOW_MS, () => {
    const until = ctx.signedIn.expiresAt;
    if (!until || until.getTime() - Date.now() > RENEWAL_MARGIN_MS) follow();
  });
  const [dialog, setDialog] = useState<'rotate' | 'delete'>();

  return (
    <>
      <section class="card" aria-labelledby="webhook-title">
        <p>
          <a href={hrefOf({ view: 'webhooks' })}>All webhooks</a>
        </p>
        <div class="section-head">
          <h1 id="webhook-title" class="wrap">
            {webhook ? `Webhook to ${webhook.url}` : `Webhook ${id}`}
          </h1>
          {webhook && (
            <span>
              <WebhookState webhook={webhook} />
            </span>
          )}
        </div>
        {revealed && <RevealedSecretBox revealed={revealed} onDismiss={() => onReveal(undefined)} />}
        <ProblemNotice error={loaded.error} />
        {loaded.loading && !webhook && <p aria-live="polite">Loading the webhook…</p>}
        {webhook && (
          <>
            <WebhookFacts ctx={ctx} webhook={webhook} />
            <WebhookActions ctx={ctx} webhook={webhook} onChanged={follow} onDialog={setDialog} />
          </>
        )}
      </section>
      {webhook && <DeliveriesCard ctx={ctx} webhookId={id} round={round} onChanged={follow} />}
      {webhook && dialog === 'rotate' && (
        <RotateSecretDialog
          ctx={ctx}
          webhook={webhook}
          onClose={() => setDialog(undefined)}
          onRotated={(rotated: RotatedWebhookSecret) => {
            setDialog(undefined);
            onReveal({ webhookId: id, secret: rotated.secret, previousValidUntil: rotated.previousSecretValidUntil });
            follow();
          }}
        />
      )}
      {webhook && dialog === 'delete' && (
        <DeleteWebhookDialog ctx={ctx} webhook={webhook} onClose={() => setDialog(undefined)} onDeleted={() => onDeleted(webhook)} />
      )}
    </>
  );
}

/** The secret just made, in the box that says it is shown this once. */
function RevealedSecretBox({ revealed, onDismiss }: { revealed: RevealedSecret; onDismiss(): void }) {
  const rotated = revealed.previousValidUntil !== undefined;
  return (
    <SecretBox
      title={rotated ? 'New signing secret' : 'Webhook added: its signing secret'}
      label="Signing secret"
      secret={revealed.secret}
      onDismiss={onDismiss}
    >
      {rotated ? (
        <p>
          The previous secret still signs every delivery beside this one until <Time value={revealed.previousValidUntil ?? ''} />: give the
          receiver the new one before then.
        </p>
      ) : (
        <p>Give it to the receiver, which checks every delivery's signature with it (Standard Webhooks).</p>
      )}
    </SecretBox>
  );
}

function WebhookFacts({ ctx, webhook }: { ctx: ViewContext; webhook: Webhook }) {
  const adminName = useAdminNames(ctx);
  return (
    <dl class="facts">
      <dt>Id</dt>
      <dd>
        <code>{webhook.id}</code>
      </dd>
      <dt>URL</dt>
      <dd>
        <code class="wrap">{webhook.url}</code>
        <span class="block muted">Credentials in it (user info, query values) are shown as ***.</span>
      </dd>
      <dt>Events</dt>
      <dd>
        <EventFilters webhook={webhook} channelName={ctx.channelName} />
      </dd>
      <dt>Last delivery</dt>
      <dd>
        <LastDelivery webhook={webhook} />
      </dd>
      <dt>Behind</dt>
      <dd>
        <Behind webhook={webhook} />
      </dd>
      <dt>Created</dt>
      <dd>
        <Time value={webhook.createdAt} /> by <AdminName id={webhook.createdBy} name={adminName(webhook.createdBy)} />
      </dd>
      <dt>Secret</dt>
      <dd>
        {webhook.secretRotated ? (
          <>
            Rotated <Time value={webhook.secretRotated} />
          </>
        ) : (
          'Not rotated since the webhook was added'
        )}
      </dd>
    </dl>
  );
}

/** Pause or resume, a test event now, and the dialogs of a rotation and a delete. */
function WebhookActions({
  ctx,
  webhook,
  onChanged,
  onDialog,
}: {
  ctx: ViewContext;
  webhook: Webhook;
  onChanged(): void;
  onDialog(dialog: 'rotate' | 'delete'): void;
}) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const [doing, setDoing] = useState<'pause' | 'test'>();
  /** What the last request was, for its problem's title. */
  const [last, setLast] = useState<'pause' | 'test'>();
  const [tested, setTested] = useState<WebhookTestResult>();
  // A pause a policy holds made a proposal: the top bar's count of pending ones is asked again.
  useEffect(() => {
    if (action.error instanceof HeldForApproval) ctx.proposalsChanged();
  }, [action.error]);

  // The buttons stay enabled while their request runs (a disabled button would drop the focus); a click meanwhile does nothing.
  const run = (kind: 'pause' | 'test', work: () => Promise<unknown>) => {
    if (doing) return;
    setDoing(kind);
    setLast(kind);
    setTested(undefined);
    void action.run(work).finally(() => setDoing(undefined));
  };
  const setPaused = (paused: boolean) =>
    run('pause', async () => {
      await ctx.client.updateWebhook(webhook.id, { paused });
      onChanged();
      ctx.announce(
        paused
          ? 'Webhook paused: its events wait, and nothing is sent until it is resumed.'
          : 'Webhook resumed: delivery goes on where it stood.',
      );
    });
  const test = () => run('test', async () => setTested(await ctx.client.testWebhook(webhook.id)));

  return (
    <>
      <div class="form-actions">
        {webhook.paused ? (
          <button type="button" class="button" onClick={() => setPaused(false)}>
            {doing === 'pause' ? 'Resuming…' : 'Resume'}
          </button>
        ) : (
          <button type="button" class="button" onClick={() => setPaused(true)}>
            {doing === 'pause' ? 'Pausing…' : 'Pause'}
          </button>
        )}
        <button type="button" class="button" onClick={test}>
          {doing === 'test' ? 'Sending…' : 'Send test event'}
        </button>
        <button type="button" class="button" onClick={() => onDialog('rotate')}>
          Rotate secret…
        </button>
        <button type="button" class="button button-danger" onClick={() => onDialog('delete')}>
          Delete…
        </button>
      </div>
      <ProblemNotice error={action.error} title={last === 'test' ? 'No test event sent' : 'Nothing changed'} />
      {tested && <TestResult result={tested} />}
    </>
  );
}

/** What the receiver made of the test event: delivered or not, its status, how long it took, and what it said. */
function TestResult({ result }: { result: WebhookTestResult }) {
  const answer = result.excerpt ? (
    <p>
      It answered: <code class="wrap">{result.excerpt}</code>
    </p>
  ) : null;
  if (result.delivered) {
    return (
      <div class="notice" role="status">
        <p>
          <strong>Test event delivered:</strong> HTTP {result.status} in {result.latencyMs} ms.
        </p>
        {answer}
      </div>
    );
  }
  return (
    <div class="notice notice-error" role="alert">
      <p>
        <strong>Test event not delivered</strong> after {result.latencyMs} ms: {result.error ?? `HTTP ${result.status}`}.
      </p>
      <p class="muted">While the receiver fails like this, events wait and are retried; after a day of failures they are dead.</p>
    </div>
  );
}
