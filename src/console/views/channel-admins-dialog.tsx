import { useState } from 'preact/hooks';
import type { ChannelInfo } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';
import type { ViewContext } from './context.ts';

/** As many admins as the "link an admin" choice offers. */
const ADMINS_LISTED = 1000;

/** Who is linked to the channel, linking another admin and unlinking one (which ends their access within the auth-state refresh). */
export function ChannelAdminsDialog({ ctx, channel, onClose }: { ctx: ViewContext; channel: ChannelInfo; onClose(): void }) {
  const linked = useLoad(() => ctx.client.listChannelAdmins(channel.id), channel.id);
  const manages = ctx.can('admins:manage');
  const candidates = useLoad(
    () => (manages ? ctx.client.listAdmins({ limit: ADMINS_LISTED, status: 'ACTIVE' }) : Promise.resolve({ items: [], next: null })),
    'candidates',
  );
  const [chosen, setChosen] = useState('');
  const action = useAction((error) => ctx.session.noticeError(error));
  const linkedIds = new Set(linked.data?.items.map((admin) => admin.id));
  const linkable = candidates.data?.items.filter((admin) => !linkedIds.has(admin.id)) ?? [];

  const change = (work: () => Promise<void>, message: string) =>
    action.run(async () => {
      await work();
      await linked.reload();
      ctx.announce(message);
    });

  return (
    <ConfirmDialog
      title={`Admins of ${channel.name}`}
      confirmLabel="Done"
      closeOnly
      onConfirm={onClose}
      onCancel={onClose}
      busy={action.busy}
    >
      <ProblemNotice error={linked.error ?? candidates.error} />
      {linked.data?.items.length === 0 && <p>No admin is linked to this channel.</p>}
      {linked.data && linked.data.items.length > 0 && (
        <ul class="link-list" aria-label={`Admins linked to ${channel.name}`}>
          {linked.data.items.map((admin) => (
            <li key={admin.id} class="wallet-row">
              <span>
                {admin.displayName} <code class="muted">{admin.id}</code>
              </span>
              {manages && (
                <RowButton
                  label="Unlink"
                  aria-label={`Unlink ${admin.displayName}`}
                  danger
                  disabled={action.busy}
                  onClick={() =>
                    change(() => ctx.client.unlinkAdmin(channel.id, admin.id), `${admin.displayName} is unlinked from ${channel.name}.`)
                  }
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {manages && linkable.length > 0 && (
        <div class="inline-form">
          <label class="field">
            <span>Link an admin</span>
            <select value={chosen} onChange={(event) => setChosen((event.target as HTMLSelectElement).value)}>
              <option value="">Choose…</option>
              {linkable.map((admin) => (
                <option key={admin.id} value={admin.id}>
                  {admin.displayName}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            class="button button-primary"
            disabled={chosen === '' || action.busy}
            onClick={() => {
              const admin = linkable.find((candidate) => candidate.id === chosen);
              void change(
                () => ctx.client.linkAdmin(channel.id, chosen),
                `${admin?.displayName ?? chosen} is linked to ${channel.name}.`,
              ).then((done) => done && setChosen(''));
            }}
          >
            Link
          </button>
        </div>
      )}
      {!manages && <p class="muted">Linking and unlinking admins needs the admins:manage permission.</p>}
      <ProblemNotice error={action.error} title="Nothing changed" />
    </ConfirmDialog>
  );
}
