import { useState } from 'preact/hooks';
import type { ChannelInfo } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';

interface ChannelDialogProps {
  ctx: ViewContext;
  channel: ChannelInfo;
  onDone(message: string): void;
  onClose(): void;
}

/** A new name for the channel: its id, which links and scripts may use, stays. */
export function RenameChannelDialog({ ctx, channel, onDone, onClose }: ChannelDialogProps) {
  const [name, setName] = useState(channel.name);
  const action = useAction((error) => ctx.session.noticeError(error));
  const rename = () =>
    action.run(async () => {
      const renamed = await ctx.client.updateChannel(channel.id, { name: name.trim() });
      onDone(`${channel.name} is now called ${renamed.name}.`);
    });
  return (
    <ConfirmDialog title={`Rename ${channel.name}`} confirmLabel="Rename" busy={action.busy} onConfirm={rename} onCancel={onClose}>
      <label class="field">
        <span>New name</span>
        <input value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
      </label>
      <p class="muted">
        Its id <code>{channel.id}</code> stays: links and scripts that name the channel by id keep working, those that name it by name do
        not.
      </p>
      <ProblemNotice error={action.error} title="Not renamed" />
    </ConfirmDialog>
  );
}

/** Archiving makes the channel read-only; unarchiving lets its admins change files again. */
export function ArchiveChannelDialog({ ctx, channel, archive, onDone, onClose }: ChannelDialogProps & { archive: boolean }) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const confirm = () =>
    action.run(async () => {
      await ctx.client.updateChannel(channel.id, { archived: archive });
      onDone(archive ? `${channel.name} is archived: read-only.` : `${channel.name} is no longer archived.`);
    });
  return (
    <ConfirmDialog
      title={archive ? `Archive ${channel.name}?` : `Unarchive ${channel.name}?`}
      confirmLabel={archive ? 'Archive' : 'Unarchive'}
      danger={archive}
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p>
        {archive
          ? 'An archived channel is read-only: uploads, deletes and restores are refused. Its files, history and backups can still be read and downloaded, and backups still run.'
          : 'Its admins can upload, delete and restore files again, as their permissions allow.'}
      </p>
      <ProblemNotice error={action.error} title="Nothing changed" />
    </ConfirmDialog>
  );
}
