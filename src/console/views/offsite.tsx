import { useMemo, useRef, useState } from 'preact/hooks';
import { HeldForApproval } from '../../client/index.ts';
import { type OffsiteApi, type OffsiteCheck, offsiteApi, type TenantOffsite } from '../transport/offsite-api.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { Time } from '../ui/time.tsx';
import { useAction } from '../ui/use-action.ts';
import { useEvery } from '../ui/use-every.ts';
import { useLoad } from '../ui/use-load.ts';
import { AdminName } from './admin-name.tsx';
import { useAdminNames } from './admin-names.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';
import { OffsiteForm } from './offsite-form.tsx';
import { CheckResult, HeadToPublish, OffsiteState, OffsiteStatusFacts } from './offsite-parts.tsx';

/** How often the page asks again how the copy stands. */
const FOLLOW_MS = 4000;
/**
 * No asking on its own once the signature is this close to running out: a renewal asks the admin
 * to sign again, which only the admin's own action should bring about.
 */
const RENEWAL_MARGIN_MS = 2 * 60_000;

/**
 * The tenant's own off-site copy (offsite:manage, docs/offsite.md): a copy of the tenant's history
 * in the tenant's own bucket, encrypted to its own age recipients, which the operator cannot take
 * away. The target and how shipping there stands (followed on its own), testing it, stopping it,
 * and the form that sets or replaces it.
 */
export function OffsiteView({ ctx }: { ctx: ViewContext }) {
  const api = useMemo(
    () =>
      offsiteApi(ctx.client, {
        // As the session watches the client's own requests: a narrowed admin is read again, a suspended one signed out.
        onRefused: (refusal) =>
          refusal.code === 'PERMISSION_DENIED' ? void ctx.session.refreshPrincipal() : ctx.session.noticeError(refusal),
      }),
    [ctx.client, ctx.session],
  );
  const loaded = useLoad(() => api.get(), 'offsite');
  // What was last read stays shown while a refresh fails (its problem is said above it); null: no target.
  const lastRead = useRef<TenantOffsite | null | undefined>(undefined);
  if (loaded.data !== undefined) lastRead.current = loaded.data;
  const offsite = lastRead.current;
  useEvery(FOLLOW_MS, () => {
    const until = ctx.signedIn.expiresAt;
    if (offsite && (!until || until.getTime() - Date.now() > RENEWAL_MARGIN_MS)) void loaded.reload();
  });
  const [stopping, setStopping] = useState(false);

  return (
    <>
      <section class="card" aria-labelledby="offsite-title">
        <div class="section-head">
          <h1 id="offsite-title">Off-site copy</h1>
          {offsite && <OffsiteState status={offsite.status} />}
        </div>
        <p class="muted">
          A copy of the tenant's history (files and their versions, backups, admins, channels, policies, proposals and the audit log) in a
          bucket of the tenant's own, encrypted to the tenant's own age recipients: only their identities read it, and the service's
          operator cannot take it away. <code>wallet-admin offsite restore --tenant</code> rebuilds the tenant from it.
        </p>
        <ProblemNotice error={loaded.error} />
        {loaded.loading && offsite === undefined && <p aria-live="polite">Loading the off-site copy…</p>}
        {offsite === null && <p>No off-site copy yet: set its target below.</p>}
        {offsite && (
          <>
            <TargetFacts ctx={ctx} offsite={offsite} />
            <TargetActions ctx={ctx} api={api} onTested={() => void loaded.reload()} onStop={() => setStopping(true)} />
          </>
        )}
      </section>
      {offsite && (
        <section class="card" aria-labelledby="offsite-status-title">
          <h2 id="offsite-status-title">How the copy stands</h2>
          <OffsiteStatusFacts offsite={offsite} />
          <h3 class="subhead">Head to publish</h3>
          <HeadToPublish head={offsite.status.head} />
        </section>
      )}
      {offsite !== undefined && (
        <section class="card" aria-labelledby="offsite-form-title">
          <h2 id="offsite-form-title">{offsite ? 'Replace the target' : 'Set the target'}</h2>
          {offsite && (
            <p class="muted">
              Another bucket, key or recipients: the secret key is asked again. The copy starts anew there with a full snapshot; nothing at
              the present target is deleted.
            </p>
          )}
          {/* A new revision (set here or elsewhere) starts the form again from what is set now. */}
          <OffsiteForm
            key={offsite?.revision ?? 0}
            ctx={ctx}
            api={api}
            current={offsite}
            onSet={(set) => {
              void loaded.reload();
              ctx.announce(`Off-site target set: the copy goes to ${set.url} from now on. Test the target to reach it and ship at once.`);
            }}
          />
        </section>
      )}
      {offsite && stopping && (
        <StopDialog
          ctx={ctx}
          api={api}
          offsite={offsite}
          onClose={() => setStopping(false)}
          onStopped={() => {
            setStopping(false);
            void loaded.reload();
            ctx.announce(`Shipping stopped: nothing was deleted at ${offsite.url}, and the copy there stays the tenant's.`);
          }}
        />
      )}
    </>
  );
}

function TargetFacts({ ctx, offsite }: { ctx: ViewContext; offsite: TenantOffsite }) {
  const adminName = useAdminNames(ctx);
  return (
    <dl class="facts">
      <dt>Bucket</dt>
      <dd>
        <code class="wrap">{offsite.url}</code>
      </dd>
      <dt>Endpoint</dt>
      <dd>
        {offsite.endpoint ? <code class="wrap">{offsite.endpoint}</code> : 'AWS S3'}
        {offsite.forcePathStyle && <span class="muted"> (path-style)</span>}
      </dd>
      <dt>Region</dt>
      <dd>
        <code>{offsite.region}</code>
      </dd>
      <dt>Key id</dt>
      <dd>
        <code class="wrap">{offsite.accessKeyId}</code>
        <span class="block muted">Its secret is kept sealed and never shown: replacing the target asks for it again.</span>
      </dd>
      <dt>Recipients</dt>
      <dd>
        <ul class="recipient-list" aria-label="Recipients">
          {offsite.recipients.map((recipient) => (
            <li key={recipient}>
              <code class="wrap">{recipient}</code>
            </li>
          ))}
        </ul>
      </dd>
      <dt>Set</dt>
      <dd>
        <Time value={offsite.updatedAt} /> by <AdminName id={offsite.setBy} name={adminName(offsite.setBy)} />
        {offsite.revision > 1 && <span class="muted"> (change {offsite.revision})</span>}
      </dd>
    </dl>
  );
}

/** "Test the target", its result, and "Stop shipping…". */
function TargetActions({ ctx, api, onTested, onStop }: { ctx: ViewContext; api: OffsiteApi; onTested(): void; onStop(): void }) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const [check, setCheck] = useState<OffsiteCheck>();
  // The button stays enabled while the test runs (a disabled button would drop the focus); a click meanwhile does nothing.
  const test = () => {
    if (action.busy) return;
    setCheck(undefined);
    void action.run(async () => {
      setCheck(await api.test());
      onTested();
    });
  };
  return (
    <>
      <div class="form-actions">
        <button type="button" class="button" onClick={test}>
          {action.busy ? 'Testing…' : 'Test the target'}
        </button>
        <button type="button" class="button button-danger" onClick={onStop}>
          Stop shipping…
        </button>
      </div>
      <p class="muted">
        The test reaches the bucket with its key, lists the copy there and ships what is pending; shipping goes on by itself every few
        seconds.
      </p>
      <ProblemNotice error={action.error} title="Not tested" />
      {check && <CheckResult check={check} />}
    </>
  );
}

/** Stops shipping, after saying that nothing at the target is deleted. */
function StopDialog({
  ctx,
  api,
  offsite,
  onClose,
  onStopped,
}: {
  ctx: ViewContext;
  api: OffsiteApi;
  offsite: TenantOffsite;
  onClose(): void;
  onStopped(): void;
}) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const held = action.error instanceof HeldForApproval ? action.error.proposal : undefined;
  const confirm = () =>
    action.run(async () => {
      await api.remove();
      onStopped();
    });
  // A policy may hold it (offsite.change): shipping goes on until the proposal runs.
  if (held) return <NeedsApprovalDialog ctx={ctx} proposal={held} onClose={onClose} />;
  return (
    <ConfirmDialog
      title="Stop shipping the off-site copy?"
      confirmLabel="Stop shipping"
      danger
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p>
        The service stops sending the tenant's changes to <code class="wrap">{offsite.url}</code> and forgets its key.
      </p>
      <p>
        <strong>Nothing at the target is deleted:</strong> the copy there stays the tenant's, readable with its identities, and a rebuild
        from it still works (up to the last change shipped). A target set again later starts with a full copy.
      </p>
      <ProblemNotice error={action.error} title="Not stopped" />
    </ConfirmDialog>
  );
}
