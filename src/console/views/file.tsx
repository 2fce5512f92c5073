import { useState } from 'preact/hooks';
import type { FileInfo, FileVersion } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { saveResponse } from '../ui/download.ts';
import { formatBackupTimestamp, formatBytes, lowerFirst, shortHash } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { Time } from '../ui/time.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChannelHeader, isMissingChannel, MissingChannel } from './channel-header.tsx';
import type { ViewContext } from './context.ts';
import { FileHistory } from './file-history.tsx';
import { undoRestoreOffer } from './undo.ts';

/**
 * What a version is, in words: "Backup of Nov 23, 2026, 2:00:00 PM GMT+1", "Bytes an upload or a
 * restore replaced"… In a sentence, lowerFirst: the date and time keep their case.
 */
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
        `${filename} restored: ${lowerFirst(describe(version))}.`,
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

  const about = { data: versions.data, error: current.error ?? versions.error };
  if (isMissingChannel(ctx, channel, about)) return <MissingChannel channel={channel} error={about.error} />;
  // A name the service refuses (INVALID_PATH) has no history to show either: the answer says why.
  const refused = current.error !== undefined;
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
              <dd>
                <Time value={live.updatedAt} />
              </dd>
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
      {!refused && <FileHistory versions={versions} live={live} canRestore={canRestore} describe={describe} onRestore={setRestoring} />}
      {restoring && (
        <ConfirmDialog
          title={`Restore ${filename}?`}
          confirmLabel="Restore"
          busy={busy}
          onConfirm={() => restore(restoring)}
          onCancel={() => setRestoring(undefined)}
        >
          <p>
            {filename} gets the bytes of the <strong>{lowerFirst(describe(restoring))}</strong> ({formatBytes(restoring.size)},{' '}
            <code>{shortHash(restoring.sha256)}</code>).
          </p>
          {live ? (
            <p>
              What it holds now ({formatBytes(live.size)}, <code>{shortHash(live.sha256)}</code>, updated <Time value={live.updatedAt} />)
              is kept as a version first, so you can undo this restore.
            </p>
          ) : (
            <p>The file is deleted now: the restore brings it back.</p>
          )}
        </ConfirmDialog>
      )}
    </>
  );
}
