import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

interface SecretBoxProps {
  /** What the secret is, said first ("Signing secret of the new webhook"). */
  title: string;
  secret: string;
  /** The input's accessible name. */
  label: string;
  /** What to do with it, and until when anything else holds. */
  children?: ComponentChildren;
  onDismiss(): void;
}

/**
 * A secret the service answers once and keeps only sealed (a webhook's signing secret): shown in a
 * box that stands out from the page's notices, with a copy button, and saying that it will not be
 * shown again. It stays until the admin dismisses it or leaves the page.
 */
export function SecretBox({ title, secret, label, children, onDismiss }: SecretBoxProps) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const copy = () =>
    navigator.clipboard.writeText(secret).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <div class="notice notice-secret" role="status">
      <strong>{title}</strong>
      <p>
        <strong>Copy it now: it will not be shown again.</strong>
      </p>
      {children}
      <div class="copy-row">
        {/* A text area, not an input: it wraps, so that the whole secret shows on a phone too. */}
        <textarea
          class="secret-value"
          readOnly
          rows={1}
          spellcheck={false}
          value={secret}
          aria-label={label}
          onFocus={(event) => (event.target as HTMLTextAreaElement).select()}
        />
        <button type="button" class="button button-primary" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy secret'}
        </button>
        <button type="button" class="button" onClick={onDismiss}>
          Done
        </button>
      </div>
      {copied === 'failed' && <p>The browser did not allow copying: select the secret and copy it yourself.</p>}
    </div>
  );
}
