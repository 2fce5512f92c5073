import { useState } from 'preact/hooks';
import type { OffsiteCheck, OffsiteHead, OffsiteStatus, TenantOffsite } from '../transport/offsite-api.ts';
import { formatBytes } from '../ui/format.ts';
import { Time } from '../ui/time.tsx';

/**
 * How the tenant's own off-site copy stands, in words that stand alone (on a phone each fact is on
 * its own line): its state, how far behind it is, what was shipped, what failed, the last test and
 * the head to publish.
 */

const STATE_LABEL = { pending: 'Pending', ok: 'OK', failing: 'Failing' } as const;

export function OffsiteState({ status }: { status: OffsiteStatus }) {
  return <span class={`badge badge-offsite-${status.state}`}>{STATE_LABEL[status.state]}</span>;
}

/** 12.3 → "12 s"; 5400 → "90 min"; then hours and days: how long a change has waited. */
export function formatDuration(seconds: number): string {
  if (seconds < 1) return 'under a second';
  if (seconds < 90) return `${Math.round(seconds)} s`;
  const minutes = seconds / 60;
  if (minutes < 90) return `${Math.round(minutes)} min`;
  const hours = minutes / 60;
  if (hours < 48) return `${Math.round(hours)} h`;
  return `${Math.round(hours / 24)} days`;
}

/** "Up to date", or how many changes the copy lacks and how long the oldest has waited. */
export function lagText(status: OffsiteStatus): string {
  const n = status.changesPending;
  if (n === 0) return 'Up to date: the copy holds every change';
  return `${n} ${n === 1 ? 'change' : 'changes'} not in the copy yet, the oldest for ${formatDuration(status.lagSeconds)}`;
}

/** "ok: reached …" as "reached …": the badge beside it says which. */
const withoutVerdict = (result: string) => result.replace(/^(ok|failed): /, '');

/** Every fact of the status, as a list of terms. */
export function OffsiteStatusFacts({ offsite }: { offsite: TenantOffsite }) {
  const status = offsite.status;
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>
        <OffsiteState status={status} />{' '}
        {status.state === 'pending' && <span class="muted">Nothing shipped yet: the first copy goes within seconds.</span>}
        {status.state === 'failing' && <span class="muted">The last round failed: it is tried again, waiting longer each time.</span>}
      </dd>
      <dt>Lag</dt>
      <dd>{lagText(status)}</dd>
      <dt>Last shipped</dt>
      <dd>
        {status.lastShipped ? (
          <>
            <Time value={status.lastShipped} />
            <span class="block muted">
              {formatBytes(status.bytesShipped)} in {status.objectsShipped} {status.objectsShipped === 1 ? 'object' : 'objects'} since the
              target was set
            </span>
          </>
        ) : (
          <span class="muted">Nothing yet</span>
        )}
      </dd>
      {status.generation !== null && (
        <>
          <dt>Copy</dt>
          <dd>
            Generation <code class="wrap">{status.generation}</code>, segment {status.segment ?? '—'}
          </dd>
        </>
      )}
      <dt>Last error</dt>
      <dd>
        {status.lastError ? (
          <>
            <span class="wrap">{status.lastError.message}</span>
            <span class="block muted">
              <Time value={status.lastError.at} />
            </span>
          </>
        ) : (
          <span class="muted">None</span>
        )}
      </dd>
      <dt>Last check</dt>
      <dd>
        {status.lastCheck ? (
          <>
            <CheckBadge ok={status.lastCheck.ok} /> <span class="wrap">{withoutVerdict(status.lastCheck.result)}</span>
            <span class="block muted">
              <Time value={status.lastCheck.at} />
            </span>
          </>
        ) : (
          <span class="muted">Never tested: Test the target reaches it now</span>
        )}
      </dd>
    </dl>
  );
}

function CheckBadge({ ok }: { ok: boolean }) {
  return <span class={`badge ${ok ? 'badge-ok' : 'badge-failed'}`}>{ok ? 'Passed' : 'Failed'}</span>;
}

/** What "Test the target" found: reached and shipped, or what failed. */
export function CheckResult({ check }: { check: OffsiteCheck }) {
  if (check.ok) {
    return (
      <div class="notice" role="status">
        <p>
          <strong>Test passed:</strong> <span class="wrap">{withoutVerdict(check.result)}</span>.
        </p>
        <p class="muted">
          That is what the bucket held when it was reached; then what was pending was shipped (the state below says how the copy stands
          now). Checked <Time value={check.checkedAt} />.
        </p>
      </div>
    );
  }
  return (
    <div class="notice notice-error" role="alert">
      <p>
        <strong>Test failed:</strong> <span class="wrap">{withoutVerdict(check.result)}</span>
      </p>
      <p class="muted">While the target fails, shipping is tried again, waiting longer each time; nothing is lost meanwhile.</p>
    </div>
  );
}

/**
 * The copy's head, to publish where whoever runs the service cannot rewrite it: `wallet-admin
 * offsite verify --head-file` then checks that the copy still reaches it unchanged.
 */
export function HeadToPublish({ head }: { head: OffsiteHead | null }) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  if (head === null) return <p class="muted">None yet: the first copy shipped gives one.</p>;
  const value = JSON.stringify(head);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <>
      <div class="copy-row">
        {/* A text area, not an input: it wraps, so that the whole head shows on a phone too. */}
        <textarea
          class="copy-value"
          readOnly
          rows={1}
          spellcheck={false}
          value={value}
          aria-label="Head to publish"
          onFocus={(event) => (event.target as HTMLTextAreaElement).select()}
        />
        <button type="button" class="button" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy head'}
        </button>
      </div>
      <p class="muted">
        Publish it beside your identity, somewhere the service's operator cannot rewrite. Saved as a file,{' '}
        <code>wallet-admin offsite verify --head-file</code> checks that the copy still reaches it unchanged.
      </p>
      {copied === 'failed' && <p>The browser did not allow copying: select the head and copy it yourself.</p>}
    </>
  );
}
