import { useState } from 'preact/hooks';
import { hrefOf, navigate } from '../routing.ts';
import { PagedList, usePagedLoad } from '../ui/paged-list.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';

/** The channel's folders with their file counts; a new folder comes into being with its first upload. */
export function FoldersView({ ctx, channel }: { ctx: ViewContext; channel: string }) {
  const folders = usePagedLoad((cursor) => ctx.client.listFolders(channel, { limit: 100, cursor }), channel);
  const [newFolder, setNewFolder] = useState('');
  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="folders" />
      <section class="card" aria-labelledby="folders-title">
        <h1 id="folders-title">Folders</h1>
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
        {ctx.can('files:write') && (
          <form
            class="inline-form"
            onSubmit={(event) => {
              event.preventDefault();
              const name = newFolder.trim();
              if (name) navigate({ view: 'files', channel, folder: name });
            }}
          >
            <label class="field">
              <span>New folder</span>
              <input
                value={newFolder}
                onInput={(event) => setNewFolder((event.target as HTMLInputElement).value)}
                placeholder="e.g. reports"
                maxLength={255}
              />
            </label>
            <button type="submit" class="button" disabled={newFolder.trim() === ''}>
              Open to upload
            </button>
          </form>
        )}
      </section>
    </>
  );
}
