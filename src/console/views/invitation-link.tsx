import { useState } from 'preact/hooks';
import type { IssuedInvitation } from '../../client/index.ts';
import { Time } from '../ui/time.tsx';

/** The new invitation's link, shown this once (the service keeps only its hash), to copy and send. */
export function InvitationLink({ invitation, onDismiss }: { invitation: IssuedInvitation; onDismiss(): void }) {
  const [copied, setCopied] = useState<'yes' | 'failed'>();
  const copy = () =>
    navigator.clipboard.writeText(invitation.url).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <div class="notice invitation-link" role="status">
      <strong>Invitation created: send this link to the invitee.</strong>
      <p>
        It is shown only now and works once, until <Time value={invitation.expiresAt} />. Send it by a channel you trust: whoever opens it
        first with a wallet becomes the admin.
      </p>
      <div class="copy-row">
        <input
          readOnly
          value={invitation.url}
          aria-label="Invitation link"
          onFocus={(event) => (event.target as HTMLInputElement).select()}
        />
        <button type="button" class="button button-primary" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy link'}
        </button>
        <button type="button" class="button" onClick={onDismiss}>
          Done
        </button>
      </div>
      {copied === 'failed' && <p>The browser did not allow copying: select the link and copy it yourself.</p>}
    </div>
  );
}
