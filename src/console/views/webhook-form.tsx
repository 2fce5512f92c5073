import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type CreatedWebhook, HeldForApproval, type NewWebhook, type WebhookResult } from '../../client/index.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';
import { listOf } from './webhook-parts.tsx';

const RESULTS: { value: WebhookResult; label: string }[] = [
  { value: 'ok', label: 'ok: what was done' },
  { value: 'refused', label: 'refused: what was refused (4xx)' },
  { value: 'failed', label: 'failed: what failed (5xx)' },
];

/**
 * A new webhook: where to post, which events (each filter optional, none meaning all), and from
 * which event on. The service checks the URL and the types and says what it refuses; a policy may
 * hold the creation, which then waits for approvals and has no secret yet.
 */
export function AddWebhookForm({ ctx, onCreated }: { ctx: ViewContext; onCreated(created: CreatedWebhook): void }) {
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('');
  const [channels, setChannels] = useState('');
  const [folders, setFolders] = useState('');
  const [results, setResults] = useState<WebhookResult[]>(['ok']);
  const [from, setFrom] = useState<'head' | 'start'>('head');
  const action = useAction((error) => ctx.session.noticeError(error));
  const held = action.error instanceof HeldForApproval ? action.error.proposal : undefined;
  // The held creation's dialog, once closed, leaves its notice in the form (with the link to the proposal).
  const [dismissed, setDismissed] = useState<unknown>();

  const submit = (event: Event) => {
    event.preventDefault();
    // The service takes at least one result; the fieldset says so while none is ticked.
    if (results.length === 0) return;
    void action.run(async () => {
      const webhook: NewWebhook = { url: url.trim(), results, from };
      // An empty filter is left out: the service then takes every type, channel or folder.
      for (const [name, text] of [
        ['types', types],
        ['channels', channels],
        ['folders', folders],
      ] as const) {
        const list = listOf(text);
        if (list.length > 0) webhook[name] = list;
      }
      onCreated(await ctx.client.createWebhook(webhook));
    });
  };
  const toggle = (value: WebhookResult, on: boolean) =>
    setResults(RESULTS.map((result) => result.value).filter((r) => (r === value ? on : results.includes(r))));

  return (
    <form class="webhook-form" aria-labelledby="add-webhook-title" onSubmit={submit}>
      <TextField
        id="webhook-url"
        label="URL"
        value={url}
        onInput={setUrl}
        required
        inputMode="url"
        placeholder="https://hooks.example.com/wallet-admin"
      >
        https:// to a public address; the operator may allow others (<code>OUTBOUND_ALLOW</code>).
      </TextField>
      <TextField id="webhook-types" label="Event types" value={types} onInput={setTypes}>
        e.g. upload, restore, backup.*; empty = every type.
      </TextField>
      <div class="webhook-form-row">
        <TextField id="webhook-channels" label="Channels (optional)" value={channels} onInput={setChannels}>
          Names or ids; empty = every channel and the tenant's own events.
        </TextField>
        <TextField id="webhook-folders" label="Folders (optional)" value={folders} onInput={setFolders}>
          Only file events in these folders; empty = every folder.
        </TextField>
      </div>
      <div class="webhook-form-row">
        <fieldset class="fieldset" aria-describedby={results.length === 0 ? 'webhook-results-none' : undefined}>
          <legend>Results</legend>
          {RESULTS.map((result) => (
            <label key={result.value} class="check">
              <input
                type="checkbox"
                checked={results.includes(result.value)}
                onChange={(event) => toggle(result.value, (event.target as HTMLInputElement).checked)}
              />
              <span>{result.label}</span>
            </label>
          ))}
          {results.length === 0 && (
            <p id="webhook-results-none" class="field-problem" role="alert">
              Tick at least one: ok alone is what most receivers want.
            </p>
          )}
        </fieldset>
        <fieldset class="fieldset">
          <legend>Start with</legend>
          <label class="check">
            <input type="radio" name="webhook-from" checked={from === 'head'} onChange={() => setFrom('head')} />
            <span>The events after its creation</span>
          </label>
          <label class="check">
            <input type="radio" name="webhook-from" checked={from === 'start'} onChange={() => setFrom('start')} />
            <span>Every event of the tenant's log first, then the new ones</span>
          </label>
        </fieldset>
      </div>
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={action.busy}>
          {action.busy ? 'Adding…' : 'Add webhook'}
        </button>
      </div>
      <ProblemNotice error={action.error} title={held ? undefined : 'No webhook added'} />
      {held && dismissed !== action.error && <NeedsApprovalDialog ctx={ctx} proposal={held} onClose={() => setDismissed(action.error)} />}
    </form>
  );
}

interface TextFieldProps {
  id: string;
  label: string;
  value: string;
  onInput(value: string): void;
  required?: boolean;
  placeholder?: string;
  /** What kind of text: a URL's field gets the keyboard for one, and no spelling marks. */
  inputMode?: 'url' | 'text';
  /** The hint under the field, read with it. */
  children: ComponentChildren;
}

/** A labelled text field with its hint beside it (outside the label: the hint is no part of the field's name). */
function TextField({ id, label, value, onInput, required, placeholder, inputMode, children }: TextFieldProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        required={required}
        placeholder={placeholder}
        inputMode={inputMode}
        spellcheck={false}
        autocomplete="off"
        aria-describedby={`${id}-hint`}
        onInput={(event) => onInput((event.target as HTMLInputElement).value)}
      />
      <small id={`${id}-hint`} class="muted">
        {children}
      </small>
    </div>
  );
}
