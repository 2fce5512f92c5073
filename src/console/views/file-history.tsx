import type { FileInfo, FileVersion } from '../../client/index.ts';
import { formatBytes, lowerFirst, shortHash } from '../ui/format.ts';
import { PagedList, type PagedLoad } from '../ui/paged-list.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { BackupTime, Time } from '../ui/time.tsx';

const KIND_LABELS: Record<string, string> = {
  backup: 'Backup',
  replaced: 'Replaced',
  deleted: 'Deleted',
};

interface FileHistoryProps {
  versions: PagedLoad<FileVersion>;
  /** The live file, to mark the version that holds its bytes; undefined when there is none. */
  live: FileInfo | undefined;
  canRestore: boolean;
  /** A version in words, as the page's dialog and status line say it too. */
  describe(version: FileVersion): string;
  onRestore(version: FileVersion): void;
}

/** A file's versions as a timeline, newest first, each with its Restore button (for an admin who may restore). */
export function FileHistory({ versions, live, canRestore, describe, onRestore }: FileHistoryProps) {
  return (
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
                    <strong>
                      {version.kind === 'backup' && version.timestamp ? (
                        <>
                          Backup of <BackupTime stamp={version.timestamp} />
                        </>
                      ) : (
                        describe(version)
                      )}
                    </strong>
                    <span class="muted timeline-meta">
                      kept <Time value={version.time} /> · {formatBytes(version.size)} ·{' '}
                      <code title={version.sha256}>{shortHash(version.sha256)}</code>
                      {isCurrent && ' · same bytes as now'}
                    </span>
                  </div>
                  {canRestore && (
                    <RowButton
                      label={isCurrent ? 'Current' : 'Restore'}
                      disabled={isCurrent}
                      onClick={() => onRestore(version)}
                      // The name starts with the word shown (WCAG 2.5.3): speech users say "Current" to reach it.
                      aria-label={
                        isCurrent
                          ? `Current, the same bytes as now: ${lowerFirst(describe(version))}`
                          : `Restore ${lowerFirst(describe(version))}`
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
  );
}
