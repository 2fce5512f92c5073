import { useState } from 'preact/hooks';
import { hrefOf, navigate } from '../routing.ts';
import { PagedList, usePagedLoad } from '../ui/paged-list.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { ChannelHeader, isMissingChannel, MissingChannel } from './channel-header.tsx';
import { ChannelUsageLine } from './channel-usage.tsx';
import type { ViewContext } from './context.ts';

/** The channel's folders with their file counts; a new folder comes into being with its first upload. */
export function FoldersView({ ctx, channel }: { ctx: ViewContext; channel: string }) {
  const folders = usePagedLoad((cursor) => ctx.client.listFolders(channel, { limit: 100, cursor }), channel);
  if (isMissingChannel(ctx, channel, folders)) return <MissingChannel channel={channel} error={folders.error} />;
  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="folders" />
      <section class="card" aria-labelledby="folders-title">
        <h1 id="folders-title">Folders</h1>
        {ctx.can('files:read') && <ChannelUsageLine ctx={ctx} channel={channel} />}
        <ProblemNotice error={folders.error} />
        <PagedList list={folders} label="Folders" empty={<p>No folder holds a file yet.</p>} loading="Loading folders…">
          {(items) => (
            <ul class="link-list">
              {items.map((folder) => (
                <li key={folder.name}>
                  <a href={hrefOf({ view: 'files', channel, folder: folder.name })}>
                    <strong>{folder.name}</strong>
                    <span class="muted">
                      {folder.fileCount} {folder.fileCount === 1 ? 'file' : 'files'}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
        {ctx.can('files:write') && folders.data && <NewFolderForm ctx={ctx} channel={channel} />}
      </section>
    </>
  );
}

/**
 * Opens a folder to upload to. The name is put to the service first (a listing of it): a name it
 * refuses (`../etc`, a slash…) is said here, with the service's reason, instead of opening a
 * folder page that could never hold a file.
 */
function NewFolderForm({ ctx, channel }: { ctx: ViewContext; channel: string }) {
  const [name, setName] = useState('');
  const [checking, setChecking] = useState(false);
  const [refusal, setRefusal] = useState<unknown>();
  const wanted = name.trim();
  return (
    <form
      class="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        if (!wanted) return;
        setChecking(true);
        setRefusal(undefined);
        try {
          await ctx.client.listFiles(channel, wanted, { limit: 1 });
          navigate({ view: 'files', channel, folder: wanted });
        } catch (error) {
          ctx.session.noticeError(error);
          setRefusal(error);
        } finally {
          setChecking(false);
        }
      }}
    >
      <label class="field">
        <span>New folder</span>
        <input
          value={name}
          onInput={(event) => {
            setName((event.target as HTMLInputElement).value);
            setRefusal(undefined);
          }}
          placeholder="e.g. reports"
          maxLength={255}
          aria-invalid={refusal !== undefined}
        />
      </label>
      <button type="submit" class="button" disabled={wanted === '' || checking}>
        {checking ? 'Checking…' : 'Open to upload'}
      </button>
      {refusal !== undefined && (
        <div class="inline-form-problem">
          <ProblemNotice error={refusal} title="This name cannot be a folder" />
        </div>
      )}
    </form>
  );
}
