import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { HeldForApproval } from '../../client/index.ts';
import type { OffsiteApi, OffsiteTargetRequest, TenantOffsite } from '../transport/offsite-api.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';

interface OffsiteFormProps {
  ctx: ViewContext;
  api: OffsiteApi;
  /** The target set now, whose fields the form starts with (all but the secret); null: none yet. */
  current: TenantOffsite | null;
  onSet(offsite: TenantOffsite): void;
}

/** "age1…, age1…" or one a line, as the list the service takes. */
export function recipientsOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * Sets the target, or replaces it: the bucket, its store, the key the copy is written with and the
 * recipients it is encrypted to. The secret is sent once and the field is cleared as it goes: the
 * service keeps it sealed and never shows it again. A policy may hold the change (offsite.change).
 */
export function OffsiteForm({ ctx, api, current, onSet }: OffsiteFormProps) {
  const [url, setUrl] = useState(current?.url ?? '');
  const [endpoint, setEndpoint] = useState(current?.endpoint ?? '');
  const [region, setRegion] = useState(current?.region ?? '');
  const [pathStyle, setPathStyle] = useState(current?.forcePathStyle ?? false);
  const [accessKeyId, setAccessKeyId] = useState(current?.accessKeyId ?? '');
  const [secret, setSecret] = useState('');
  const [recipients, setRecipients] = useState(current?.recipients.join('\n') ?? '');
  const [identityGiven, setIdentityGiven] = useState(false);
  const action = useAction((error) => ctx.session.noticeError(error));
  const held = action.error instanceof HeldForApproval ? action.error.proposal : undefined;
  // The held change's dialog, once closed, leaves its notice in the form (with the link to the proposal).
  const [dismissed, setDismissed] = useState<unknown>();

  const submit = (event: Event) => {
    event.preventDefault();
    const list = recipientsOf(recipients);
    // An identity is the key that reads the copy: it never leaves the page, not even to be refused.
    const identity = list.some((recipient) => /^AGE-SECRET-KEY-/i.test(recipient));
    setIdentityGiven(identity);
    if (identity) return;
    const request: OffsiteTargetRequest = {
      url: url.trim(),
      forcePathStyle: pathStyle,
      accessKeyId: accessKeyId.trim(),
      secretAccessKey: secret,
      recipients: list,
    };
    if (endpoint.trim() !== '') request.endpoint = endpoint.trim();
    if (region.trim() !== '') request.region = region.trim();
    // Sent: the page keeps no copy of the secret, whatever the answer.
    setSecret('');
    void action.run(async () => onSet(await api.set(request)));
  };

  return (
    <form class="webhook-form offsite-form" aria-labelledby="offsite-form-title" onSubmit={submit}>
      <Field
        id="offsite-url"
        label="Bucket"
        value={url}
        onInput={setUrl}
        required
        inputMode="url"
        placeholder="s3://acme-copy/wallet-admin"
      >
        <code>s3://bucket/prefix</code>: a bucket of the tenant's own, not the service's.
      </Field>
      <div class="webhook-form-row">
        <Field
          id="offsite-endpoint"
          label="Endpoint (optional)"
          value={endpoint}
          onInput={setEndpoint}
          inputMode="url"
          placeholder="https://s3.eu-central-1.wasabisys.com"
        >
          An S3-compatible store's URL, <code>https://host[:port]</code>; empty = AWS S3. A public address, unless the operator allows
          another (<code>OUTBOUND_ALLOW</code>).
        </Field>
        <Field id="offsite-region" label="Region (optional)" value={region} onInput={setRegion} placeholder="us-east-1">
          The bucket's region; empty = us-east-1.
        </Field>
      </div>
      <label class="check">
        <input type="checkbox" checked={pathStyle} onChange={(event) => setPathStyle((event.target as HTMLInputElement).checked)} />
        <span>Path-style requests (https://host/bucket/key), as MinIO and most S3-compatible stores want</span>
      </label>
      <div class="webhook-form-row">
        <Field id="offsite-key-id" label="Access key id" value={accessKeyId} onInput={setAccessKeyId} required>
          The bucket key the copy is written with: it needs to write, read and list, and should not be able to delete.
        </Field>
        <Field id="offsite-secret" label="Secret access key" value={secret} onInput={setSecret} required type="password">
          Sent once and kept sealed: the service never shows it again, and this field is cleared as it is sent.
        </Field>
      </div>
      <div class="field">
        <label for="offsite-recipients">Recipients</label>
        <textarea
          id="offsite-recipients"
          class="recipients-input"
          rows={3}
          required
          spellcheck={false}
          autocomplete="off"
          placeholder="age1…"
          aria-describedby={identityGiven ? 'offsite-recipients-hint offsite-recipients-problem' : 'offsite-recipients-hint'}
          aria-invalid={identityGiven || undefined}
          value={recipients}
          onInput={(event) => setRecipients((event.target as HTMLTextAreaElement).value)}
        />
        <small id="offsite-recipients-hint" class="muted">
          The tenant's age recipients (<code>age1…</code>), one a line: the copy is encrypted to them, and only their identities read it.
        </small>
        {identityGiven && (
          <p id="offsite-recipients-problem" class="field-problem" role="alert">
            That is an identity (AGE-SECRET-KEY-…), which reads the copy: give its recipient instead (<code>age-keygen -y</code>), and keep
            the identity to yourself. Nothing was sent.
          </p>
        )}
      </div>
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={action.busy}>
          {action.busy ? 'Saving…' : current ? 'Replace target' : 'Set target'}
        </button>
      </div>
      <ProblemNotice error={action.error} title={held ? undefined : current ? 'Target not replaced' : 'Target not set'} />
      {held && dismissed !== action.error && <NeedsApprovalDialog ctx={ctx} proposal={held} onClose={() => setDismissed(action.error)} />}
    </form>
  );
}

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onInput(value: string): void;
  required?: boolean;
  placeholder?: string;
  inputMode?: 'url' | 'text';
  type?: 'text' | 'password';
  /** The hint under the field, read with it. */
  children: ComponentChildren;
}

/** A labelled field with its hint under it (outside the label: the hint is no part of the field's name). */
function Field({ id, label, value, onInput, required, placeholder, inputMode, type, children }: FieldProps) {
  const common = {
    id,
    value,
    required,
    placeholder,
    spellcheck: false,
    'aria-describedby': `${id}-hint`,
    onInput: (event: Event) => onInput((event.target as HTMLInputElement).value),
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {type === 'password' ? (
        // A password manager must neither fill the bucket's secret in nor offer to keep it.
        <input type="password" autocomplete="new-password" {...common} />
      ) : (
        <input type="text" inputMode={inputMode} autocomplete="off" {...common} />
      )}
      <small id={`${id}-hint`} class="muted">
        {children}
      </small>
    </div>
  );
}
