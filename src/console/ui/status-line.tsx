import { createContext } from 'preact';
import { useContext, useEffect } from 'preact/hooks';

export interface Status {
  message: string;
  action?: { label: string; run(): void };
}

/**
 * The page's status line says what the last action did (and may offer its undo). It describes
 * that action only: it goes when the admin goes to another view and when a dialog opens for the
 * next one, so that it is never read as news of something else.
 */
export const StatusLineContext = createContext<{ clear(): void }>({ clear: () => undefined });

/** Clears the status line when the calling component appears (a dialog opening a new task). */
export function useClearedStatusLine(enabled: boolean): void {
  const { clear } = useContext(StatusLineContext);
  useEffect(() => {
    if (enabled) clear();
  }, []);
}

export function StatusLine({ status, onDismiss, onAction }: { status: Status | undefined; onDismiss(): void; onAction(): void }) {
  return (
    <div class="status" role="status" aria-live="polite">
      {status && (
        <p class="status-line">
          <span>{status.message}</span>
          {status.action && (
            <button type="button" class="button button-small" onClick={onAction}>
              {status.action.label}
            </button>
          )}
          <button type="button" class="button button-small button-quiet" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        </p>
      )}
    </div>
  );
}
