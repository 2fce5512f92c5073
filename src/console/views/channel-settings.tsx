import { useState } from 'preact/hooks';
import type { ChannelInfo } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import { useAction } from '../ui/use-action.ts';
import { ChannelAdminsDialog } from './channel-admins-dialog.tsx';
import { ArchiveChannelDialog, RenameChannelDialog } from './channel-dialogs.tsx';
import { ChannelPolicyDialog } from './channel-policy-dialog.tsx';
import type { ViewContext } from './context.ts';

type Editing = { channel: ChannelInfo; change: 'rename' | 'archive' | 'unarchive' | 'admins' | 'policy' };

/** Creating, renaming and archiving channels, and who is linked to each (channels:manage). */
export function ChannelSettingsView({ ctx }: { ctx: ViewContext }) {
  const channels = usePagedLoad((cursor) => ctx.client.listChannels({ limit: 50, cursor }), 'channel-settings');
  const [editing, setEditing] = useState<Editing>();
  const [name, setName] = useState('');
  const creating = useAction((error) => ctx.session.noticeError(error));
  const readsAdmins = ctx.can('admins:read');

  const changed = (message: string) => {
    setEditing(undefined);
    ctx.channelsChanged();
    void channels.reload().then(() => ctx.announce(message));
  };
  const create = (event: Event) => {
    event.preventDefault();
    void creating.run(async () => {
      const channel = await ctx.client.createChannel(name.trim());
      setName('');
      changed(`Channel ${channel.name} created; you are linked to it.`);
    });
  };

  return (
    <section class="card" aria-labelledby="channel-settings-title">
      <h1 id="channel-settings-title">Channel settings</h1>
      <form class="inline-form inline-form-first" aria-label="Create a channel" onSubmit={create}>
        <label class="field">
          <span>New channel's name</span>
          <input value={name} required onInput={(event) => setName((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="button button-primary" disabled={creating.busy || name.trim() === ''}>
          {creating.busy ? 'Creating…' : 'Create channel'}
        </button>
        <div class="inline-form-problem">
          <ProblemNotice error={creating.error} title="No channel created" />
        </div>
      </form>
      <ProblemNotice error={channels.error} />
      <PagedTable
        list={channels}
        label="Channels"
        empty={<p>You are linked to no channel yet: create one above.</p>}
        loading="Loading channels…"
        class="channels-table stacked-table"
        rowKey={(channel) => channel.id}
        columns={[
          {
            header: 'Channel',
            rowHeader: true,
            cellClass: 'name-cell',
            cell: (channel) => (
              <>
                <a href={hrefOf({ view: 'folders', channel: channel.id })}>{channel.name}</a>
                <code class="muted block">{channel.id}</code>
              </>
            ),
          },
          {
            header: 'State',
            cell: (channel) =>
              channel.archived ? <span class="badge badge-suspended">Archived</span> : <span class="badge badge-active">Open</span>,
          },
          { header: 'Created', class: 'wide-only', cell: (channel) => <Time value={channel.createdAt} /> },
        ]}
        actions={(channel) => (
          <>
            <RowButton label="Rename…" aria-label={`Rename ${channel.name}`} onClick={() => setEditing({ channel, change: 'rename' })} />
            {channel.archived ? (
              <RowButton
                label="Unarchive…"
                aria-label={`Unarchive ${channel.name}`}
                onClick={() => setEditing({ channel, change: 'unarchive' })}
              />
            ) : (
              <RowButton
                label="Archive…"
                aria-label={`Archive ${channel.name}`}
                onClick={() => setEditing({ channel, change: 'archive' })}
              />
            )}
            <RowButton label="Policy…" aria-label={`Policy of ${channel.name}`} onClick={() => setEditing({ channel, change: 'policy' })} />
            {readsAdmins && (
              <RowButton
                label="Admins…"
                aria-label={`Admins of ${channel.name}`}
                onClick={() => setEditing({ channel, change: 'admins' })}
              />
            )}
          </>
        )}
      />
      {editing?.change === 'rename' && (
        <RenameChannelDialog ctx={ctx} channel={editing.channel} onDone={changed} onClose={() => setEditing(undefined)} />
      )}
      {(editing?.change === 'archive' || editing?.change === 'unarchive') && (
        <ArchiveChannelDialog
          ctx={ctx}
          channel={editing.channel}
          archive={editing.change === 'archive'}
          onDone={changed}
          onClose={() => setEditing(undefined)}
        />
      )}
      {editing?.change === 'policy' && <ChannelPolicyDialog ctx={ctx} channel={editing.channel} onClose={() => setEditing(undefined)} />}
      {editing?.change === 'admins' && <ChannelAdminsDialog ctx={ctx} channel={editing.channel} onClose={() => setEditing(undefined)} />}
    </section>
  );
}
