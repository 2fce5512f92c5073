import { useState } from 'preact/hooks';
import type { FolderInfo, Page } from '../../client/index.ts';
import { hrefOf, navigate } from '../routing.ts';
import { Pager, usePages } from '../ui/pager.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';

/** The channel's folders with their file counts; a new folder comes into being with its first upload. */
export function FoldersView({ ctx, channel }: { ctx: ViewContext; channel: string }) {
  const pages = usePages();
  const folders = useLoad<Page<FolderInfo>>(
    () => ctx.client.listFolders(channel, { limit: 100, cursor: pages.cursor }),
    `${channel}\n${pages.cursor ?? ''}`,
  );
  const [newFolder, setNewFolder] = useState('');
  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="folders" />
      <section class="card" aria-labelledby="folders-title">
        <h1 id="folders-title">Folders</h1>
        <ProblemNotice error={folders.error} />
        {folders.data?.items.length === 0 && <p>No folder holds a file yet.</p>}
        {folders.data && folders.data.items.length > 0 && (
          <ul class="link-list">
            {folders.data.items.map((folder) => (
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
        {folders.loading && !folders.data && <p aria-live="polite">Loading folders…</p>}
        <Pager
          label="Folders"
          pageNumber={pages.pageNumber}
          next={folders.data?.next}
          onNext={() => folders.data?.next && pages.next(folders.data.next)}
          onPrevious={pages.previous}
        />
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
