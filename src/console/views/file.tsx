import { useState } from 'preact/hooks';
import type { FileInfo, FileVersion } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { saveResponse } from '../ui/download.ts';
import { formatBackupTimestamp, formatBytes, formatTime, shortHash } from '../ui/format.ts';
import { PagedList, usePagedLoad } from '../ui/paged-list.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';
import { undoRestoreOffer } from './undo.ts';

const KIND_LABELS: Record<string, string> = {
  backup: 'Backup',
  replaced: 'Replaced',
  deleted: 'Deleted',
};

/** What a version is, in words: "Backup of 23 Nov 2026, 14:00:00", "Replaced by an upload or restore"… */
function describe(version: FileVersion): string {
  if (version.kind === 'backup' && version.timestamp) return `Backup of ${formatBackupTimestamp(version.timestamp)}`;
  if (version.kind === 'replaced') return 'Bytes an upload or a restore replaced';
  if (version.kind === 'deleted') return 'Bytes the file had when it was deleted';
  return version.kind;
}

/** One file: what it is now, every version as a timeline, restore with undo. */
export function FileView({ ctx, channel, folder, filename }: { ctx: ViewContext; channel: string; folder: string; filename: string }) {
  const key = `${channel}\n${folder}\n${filename}`;
  const current = useLoad<FileInfo | undefined>(() => ctx.client.stat(channel, folder, filename), key);
  const versions = usePagedLoad((cursor) => ctx.client.versions(channel, folder, filename, { limit: 50, cursor }), key);
  const [restoring, setRestoring] = useState<FileVersion>();
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<unknown>();
  const canRestore = ctx.can('files:restore');
  const live = current.data;

  const reload = () => {
    current.reload();
    versions.reload();
  };

  const restore = async (version: FileVersion) => {
    setBusy(true);
    setActionError(undefined);
    try {
      const source = version.kind === 'backup' && version.timestamp ? { backupTimestamp: version.timestamp } : { versionId: version.id };
      const { keptVersionId } = await ctx.client.restore(channel, folder, filename, source);
      setRestoring(undefined);
      reload();
      ctx.announce(
        `${filename} restored: ${describe(version).toLowerCase()}.`,
        keptVersionId
          ? undoRestoreOffer(ctx, filename, () => ctx.client.restore(channel, folder, filename, { versionId: keptVersionId }), reload)
          : undefined,
      );
    } catch (error) {
      ctx.session.noticeError(error);
      setRestoring(undefined);
      setActionError(error);
    } finally {
      setBusy(false);
    }
  };

  const download = async () => {
    try {
      await saveResponse(await ctx.client.download(channel, folder, filename), filename);
    } catch (error) {
      ctx.session.noticeError(error);
      setActionError(error);
    }
  };

  return (
    <>
      <ChannelHeader
        ctx={ctx}
        channel={channel}
        tab="folders"
        trail={[{ label: folder, route: { view: 'files', channel, folder } }, { label: filename }]}
      />
      <section class="card" aria-labelledby="file-title">
        <h1 id="file-title" class="wrap">
          {filename}
        </h1>
        <ProblemNotice error={current.error ?? actionError} />
        {current.loading && !current.data && !current.error && <p aria-live="polite">Loading…</p>}
        {!current.loading && !current.error && !live && (
          <div class="notice" role="status">
            <strong>No live file has this name.</strong>
            <p>It was deleted, or never uploaded. Its kept versions are below{canRestore ? ': restore one to bring it back.' : '.'}</p>
          </div>
        )}
        {live && (
          <>
            <dl class="facts">
              <dt>Size</dt>
              <dd>{formatBytes(live.size)}</dd>
              <dt>Type</dt>
              <dd>{live.contentType}</dd>
              <dt>Updated</dt>
              <dd>{formatTime(live.updatedAt)}</dd>
              <dt>SHA-256</dt>
              <dd>
                <code class="wrap">{live.sha256}</code>
              </dd>
            </dl>
            <p>
              <button type="button" class="button" onClick={download}>
                Download
              </button>
            </p>
          </>
        )}
      </section>
      <section class="card" aria-labelledby="versions-title">
        <h2 id="versions-title">History</h2>
        {!canRestore && (
          <p class="muted" role="note">
            You can see this file's history; restoring needs the <code>files:restore</code> permission, which your admin account does not
            have.
          </p>
        )}
        <ProblemNotice error={versions.error} />
        <PagedList list={versions} label="Versions" empty={<p>No version is kept yet: backups, replaced and deleted bytes appear here.</p>}>
          {(items) => (
            <ol class="timeline">
              {items.map((version) => {
                const isCurrent = live?.sha256 === version.sha256;
                return (
                  <li key={version.id} class={`timeline-item kind-${version.kind}`}>
                    <div class="timeline-main">
                      <span class={`badge badge-${version.kind}`}>{KIND_LABELS[version.kind] ?? version.kind}</span>
                      <strong>{describe(version)}</strong>
                      <span class="muted timeline-meta">
                        kept {formatTime(version.time)} · {formatBytes(version.size)} ·{' '}
                        <code title={version.sha256}>{shortHash(version.sha256)}</code>
                        {isCurrent && ' · same bytes as now'}
                      </span>
                    </div>
                    {canRestore && (
                      <RowButton
                        label={isCurrent ? 'Current' : 'Restore'}
                        disabled={isCurrent}
                        onClick={() => setRestoring(version)}
                        aria-label={
                          isCurrent
                            ? `${describe(version)}: the file already has these bytes`
                            : `Restore ${describe(version).toLowerCase()}`
                        }
                      />
                    )}
                  </li>
                );
              })}
            </ol>
          )}
        </PagedList>
      </section>
      {restoring && (
        <ConfirmDialog
          title={`Restore ${filename}?`}
          confirmLabel="Restore"
          busy={busy}
          onConfirm={() => restore(restoring)}
          onCancel={() => setRestoring(undefined)}
        >
          <p>
            {filename} gets the bytes of the <strong>{describe(restoring).toLowerCase()}</strong> ({formatBytes(restoring.size)},{' '}
            <code>{shortHash(restoring.sha256)}</code>).
          </p>
          {live ? (
            <p>
              What it holds now ({formatBytes(live.size)}, <code>{shortHash(live.sha256)}</code>, updated {formatTime(live.updatedAt)}) is
              kept as a version first, so you can undo this restore.
            </p>
          ) : (
            <p>The file is deleted now: the restore brings it back.</p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
