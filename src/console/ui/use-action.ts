import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  /** The last run's failure, until the next run. */
  error: unknown;
  /** Runs `work` unless a run is under way; true when it succeeded. */
  run(work: () => Promise<unknown>): Promise<boolean>;
}

/**
 * One change the admin asks for (a dialog's confirm, a form's submit): busy while it runs, its
 * failure kept for a ProblemNotice, and handed to `noticeError` so that a dead session signs out.
 */
export function useAction(noticeError: (error: unknown) => void): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  return {
    busy,
    error,
    async run(work) {
      if (busy) return false;
      setBusy(true);
      setError(undefined);
      try {
        await work();
        return true;
      } catch (failure) {
        noticeError(failure);
        setError(failure);
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}
