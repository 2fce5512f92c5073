import { useRef, useState } from 'preact/hooks';
import { trackUpload } from '../transport/progress-fetch.ts';
import { isResumable, uploadResumable } from '../transport/resumable-upload.ts';
import { formatBytes } from '../ui/format.ts';
import { messageOf } from '../ui/problem-notice.tsx';
import type { ViewContext } from './context.ts';

interface Upload {
  id: number;
  name: string;
  size: number;
  sent: number;
  state: 'waiting' | 'sending' | 'done' | 'failed';
  message?: string;
  /** A resumable upload that went on from an earlier page or attempt: the bytes the service held then. */
  resumedFrom?: number;
  /** A resumable upload lost its connection and tries again. */
  retrying?: boolean;
}

let nextId = 1;

const unfinished = (u: Upload) => u.state === 'waiting' || u.state === 'sending';

/**
 * Upload by picker or drag and drop, one file at a time in the order given, each with its
 * progress; an upload that fails says why and the others go on. A row lasts as long as it has
 * news: once the files given are all sent, those that arrived leave the list (the table shows
 * them, the status line says how many), and those that failed stay until dismissed or the next
 * upload, saying why.
 */
export function Uploader({ ctx, channel, folder, onUploaded }: { ctx: ViewContext; channel: string; folder: string; onUploaded(): void }) {
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);
  const queue = useRef(Promise.resolve());
  const input = useRef<HTMLInputElement>(null);
  /** Uploads given and not finished yet, and what those of this round did: the status line says it once all are done. */
  const pending = useRef(0);
  const batch = useRef({ created: [] as string[], replaced: [] as string[] });

  const update = (id: number, change: Partial<Upload>) => setUploads((list) => list.map((u) => (u.id === id ? { ...u, ...change } : u)));

  const enqueue = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const added = [...files].map((file) => ({
      file,
      upload: { id: nextId++, name: file.name, size: file.size, sent: 0, state: 'waiting' as const },
    }));
    // A new upload starts a new list: what the last ones did is no longer news.
    setUploads((list) => [...list.filter(unfinished), ...added.map((a) => a.upload)]);
    pending.current += added.length;
    for (const { file, upload } of added) {
      queue.current = queue.current.then(async () => {
        update(upload.id, { state: 'sending' });
        const stop = trackUpload(file, (sent) => update(upload.id, { sent }));
        try {
          const created = isResumable(file)
            ? await sendResumable(file, upload.id)
            : (await ctx.client.upload(channel, folder, file.name, file)).created;
          update(upload.id, { state: 'done', sent: file.size });
          (created ? batch.current.created : batch.current.replaced).push(file.name);
          onUploaded();
        } catch (error) {
          ctx.session.noticeError(error);
          update(upload.id, { state: 'failed', message: messageOf(error), retrying: false });
        } finally {
          stop();
        }
        finishBatch();
      });
    }
  };

  /**
   * A large file, through the resumable upload (transport/resumable-upload.ts): the same file given
   * again after a reload or a failure goes on where the service stands. Answers whether it created
   * the file: unless the file's newest version is the one this upload replaced (kept at the instant
   * the file was written, by the service's clock).
   */
  const sendResumable = async (file: File, id: number): Promise<boolean> => {
    await uploadResumable({
      channel,
      folder,
      file,
      headers: () => ctx.client.signIn(),
      onProgress: (sent) => update(id, { sent, retrying: false }),
      onResume: (offset) => update(id, { sent: offset, resumedFrom: offset }),
      onRetry: () => update(id, { retrying: true }),
    });
    const [live, versions] = await Promise.all([
      ctx.client.stat(channel, folder, file.name),
      ctx.client.versions(channel, folder, file.name, { limit: 1 }),
    ]).catch(() => [undefined, undefined]);
    const newest = versions?.items[0];
    // The file's time comes to the second (Last-Modified).
    const second = (time: string) => Math.floor(Date.parse(time) / 1000);
    return !(live && newest?.kind === 'replaced' && second(newest.time) === second(live.updatedAt));
  };

  /** Once nothing is left to send: the arrived rows go, and the status line says what arrived. */
  const finishBatch = () => {
    pending.current -= 1;
    if (pending.current > 0) return;
    setUploads((list) => list.filter((u) => u.state !== 'done'));
    const { created, replaced } = batch.current;
    batch.current = { created: [], replaced: [] };
    const summary = arrivedSummary(created, replaced, folder);
    if (summary) ctx.announce(summary);
  };

  return (
    <section class="uploader" aria-label="Upload files">
      <fieldset
        class={dragging ? 'drop-zone drop-zone-active' : 'drop-zone'}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          enqueue(event.dataTransfer?.files ?? null);
        }}
      >
        <legend class="visually-hidden">Drop files here to upload them</legend>
        <p>
          Drop files here, or{' '}
          <button type="button" class="button" onClick={() => input.current?.click()}>
            Choose files…
          </button>
        </p>
        <input
          ref={input}
          type="file"
          multiple
          class="visually-hidden"
          aria-label={`Files to upload to ${folder}`}
          tabIndex={-1}
          onChange={(event) => {
            const target = event.target as HTMLInputElement;
            enqueue(target.files);
            target.value = '';
          }}
        />
        <p class="muted">A file with the name of an existing one replaces it; the replaced bytes stay restorable.</p>
      </fieldset>
      {uploads.length > 0 && (
        <ul class="uploads" aria-live="polite">
          {uploads.map((u) => (
            <li key={u.id} class={`upload upload-${u.state}`}>
              <span class="upload-name">{u.name}</span>
              <progress max={u.size || 1} value={u.state === 'done' ? u.size || 1 : u.sent} aria-label={`Upload of ${u.name}`} />
              <span class="upload-state">
                {u.state === 'waiting' && 'Waiting'}
                {u.state === 'sending' && sendingText(u)}
                {u.state === 'done' && 'Uploaded'}
                {u.state === 'failed' && u.message}
              </span>
              {u.state === 'failed' && (
                <button
                  type="button"
                  class="button button-small button-quiet upload-dismiss"
                  aria-label={`Dismiss the failed upload of ${u.name}`}
                  onClick={() => setUploads((list) => list.filter((other) => other.id !== u.id))}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** "12 MB of 40 MB", "Resuming at 37 %", "15 MB of 40 MB, resumed at 37 %", "Connection lost, trying again at 15 MB of 40 MB". */
function sendingText(u: Upload): string {
  const progress = `${formatBytes(u.sent)} of ${formatBytes(u.size)}`;
  if (u.retrying) return `Connection lost, trying again at ${progress}`;
  if (u.resumedFrom === undefined) return progress;
  const share = `${Math.floor((u.resumedFrom / u.size) * 100)} %`;
  return u.sent <= u.resumedFrom ? `Resuming at ${share}` : `${progress}, resumed at ${share}`;
}

/** "q3.txt uploaded", "q3.txt replaced; the previous bytes are kept as a version", "3 files uploaded to reports (1 replaced)". */
function arrivedSummary(created: string[], replaced: string[], folder: string): string | undefined {
  const all = [...created, ...replaced];
  if (all.length === 0) return undefined;
  if (all.length === 1) return created.length === 1 ? `${all[0]} uploaded` : `${all[0]} replaced; the previous bytes are kept as a version`;
  const kept = replaced.length > 0 ? ` (${replaced.length} replaced; the previous bytes are kept as versions)` : '';
  return `${all.length} files uploaded to ${folder}${kept}`;
}
