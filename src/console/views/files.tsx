import { useState } from 'preact/hooks';
import type { FileInfo } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { dispositionName, saveResponse } from '../ui/download.ts';
import { FileName } from '../ui/file-name.tsx';
import { formatBytes } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { messageOf, ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import { ChannelHeader, isMissingChannel, MissingChannel } from './channel-header.tsx';
import type { ViewContext } from './context.ts';
import { FolderTabs } from './folder-tabs.tsx';
import { ScopeRestoreDialog } from './scope-restore-dialog.tsx';
import { undoDelete } from './undo.ts';
import { Uploader } from './uploader.tsx';

const PAGE_SIZES = [100, 250, 1000];

/** The files of one folder, a page at a time, with upload, download and delete. */
export function FilesView({ ctx, channel, folder }: { ctx: ViewContext; channel: string; folder: string }) {
  const [pageSize, setPageSize] = useState(PAGE_SIZES[0] ?? 100);
  const files = usePagedLoad(
    (cursor) => ctx.client.listFiles(channel, folder, { limit: pageSize, cursor }),
    `${channel}\n${folder}\n${pageSize}`,
  );
  const [deleting, setDeleting] = useState<FileInfo>();
  const [restoringFolder, setRestoringFolder] = useState(false);
  const [busy, setBusy] = useState(false);
  const [zipping, setZipping] = useState(false);
  const [actionError, setActionError] = useState<unknown>();
  const canWrite = ctx.can('files:write');
  // The folder is one the service accepts once it answered its listing: until then (and when it
  // refused the name, INVALID_PATH) no upload area or restore is offered for it.
  const accepted = files.data !== undefined;

  const download = async (file: FileInfo) => {
    setActionError(undefined);
    try {
      await saveResponse(await ctx.client.download(channel, folder, file.filename), file.filename);
    } catch (error) {
      ctx.session.noticeError(error);
      setActionError(error);
    }
  };

  // The folder's live files as one ZIP; its backups' and instants' are on the Backups tab.
  const downloadZip = async () => {
    setActionError(undefined);
    setZipping(true);
    try {
      const response = await ctx.client.archiveFolder(channel, folder);
      await saveResponse(response, dispositionName(response, `${folder}.zip`));
    } catch (error) {
      ctx.session.noticeError(error);
      setActionError(error);
    } finally {
      setZipping(false);
    }
  };

  const remove = async (file: FileInfo) => {
    setBusy(true);
    try {
      await ctx.client.deleteFile(channel, folder, file.filename);
      setDeleting(undefined);
      files.reload();
      // Undoing is a restore: offered only to an admin who may restore.
      const undo = ctx.can('files:restore')
        ? {
            label: 'Undo',
            run: () =>
              undoDelete(ctx, channel, folder, file.filename).then(
                () => files.reload().then(() => ctx.announce(`${file.filename} restored`)),
                (error: unknown) => ctx.announce(`Could not undo: ${messageOf(error)}`),
              ),
          }
        : undefined;
      ctx.announce(`${file.filename} deleted; it stays restorable as a version.`, undo);
    } catch (error) {
      ctx.session.noticeError(error);
      setDeleting(undefined);
      setActionError(error);
    } finally {
      setBusy(false);
    }
  };

  if (isMissingChannel(ctx, channel, files)) return <MissingChannel channel={channel} error={files.error} />;
  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="folders" trail={[{ label: folder }]} />
      <section class="card" aria-labelledby="files-title">
        <div class="section-head">
          <h1 id="files-title" class="wrap">
            {folder}
          </h1>
          {accepted && (
            <div class="section-tools">
              <button
                type="button"
                class="button"
                onClick={downloadZip}
                disabled={zipping}
                aria-label={`Download ZIP of the folder ${folder}`}
              >
                {zipping ? 'Preparing ZIP…' : 'Download ZIP'}
              </button>
              {ctx.can('files:restore') && (
                <button type="button" class="button" onClick={() => setRestoringFolder(true)}>
                  Restore folder…
                </button>
              )}
              <label class="field field-inline">
                <span>Per page</span>
                <select
                  value={String(pageSize)}
                  onChange={(event) => {
                    setPageSize(Number((event.target as HTMLSelectElement).value));
                    files.pages.reset();
                  }}
                >
                  {PAGE_SIZES.map((size) => (
                    <option key={size} value={String(size)}>
                      {size}
                    </option>
                  ))}
                </select>
              </label>
            </div>
          )}
        </div>
        {accepted && <FolderTabs channel={channel} folder={folder} current="files" />}
        {accepted && canWrite && <Uploader ctx={ctx} channel={channel} folder={folder} onUploaded={files.reload} />}
        <ProblemNotice error={files.error ?? actionError} />
        <PagedTable
          list={files}
          label="Files"
          empty={<p>This folder has no files{canWrite ? ': upload the first one above.' : '.'}</p>}
          emptyOnFirstPageOnly
          loading="Loading files…"
          class="files-table list-table"
          busy={files.loading}
          rowKey={(file) => file.filename}
          columns={[
            {
              header: 'Name',
              rowHeader: true,
              cellClass: 'name-cell',
              cell: (file) => (
                <a href={hrefOf({ view: 'file', channel, folder, filename: file.filename })}>
                  <FileName name={file.filename} />
                </a>
              ),
            },
            { header: 'Size', class: 'num', cell: (file) => formatBytes(file.size) },
            { header: 'Type', class: 'wide-only', cell: (file) => file.contentType },
            { header: 'Updated', class: 'wide-only', cellClass: 'time-cell', cell: (file) => <Time value={file.updatedAt} /> },
          ]}
          actions={(file) => (
            <>
              <RowButton label="Download" onClick={() => download(file)} aria-label={`Download ${file.filename}`} />
              {canWrite && <RowButton label="Delete" danger onClick={() => setDeleting(file)} aria-label={`Delete ${file.filename}`} />}
            </>
          )}
        />
      </section>
      {restoringFolder && (
        <ScopeRestoreDialog
          ctx={ctx}
          channel={channel}
          folder={folder}
          onClose={() => setRestoringFolder(false)}
          onRestored={files.reload}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.filename}?`}
          confirmLabel="Delete"
          danger
          busy={busy}
          onConfirm={() => remove(deleting)}
          onCancel={() => setDeleting(undefined)}
        >
          <p>
            The file leaves <strong>{folder}</strong>. Its bytes ({formatBytes(deleting.size)}) are kept as a version:{' '}
            {ctx.can('files:restore')
              ? 'you can undo this, or restore it later from its history.'
              : 'an admin with the files:restore permission can bring it back from its history.'}
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
