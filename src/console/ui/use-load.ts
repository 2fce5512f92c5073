import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  /**
   * Loads again; settles once the newest answer is shown (or its error), so that a view can say
   * "saved" only when the list already shows what was saved.
   */
  reload(): Promise<void>;
}

/**
 * Runs `load` when `key` changes and on reload(). An answer that arrives after a newer request was
 * started is dropped, so a fast click through pages never shows an older page last.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  /** Who awaits a reload: told when the newest load settles, whichever round started it. */
  const waiting = useRef<Array<() => void>>([]);

  useEffect(() => {
    const ticket = ++latest.current;
    setState((previous) => ({ data: previous.data, loading: true }));
    const settle = (next: { data?: T; error?: unknown; loading: boolean }) => {
      if (ticket !== latest.current) return;
      setState(next);
      const told = waiting.current;
      waiting.current = [];
      for (const resolve of told) resolve();
    };
    loadRef.current().then(
      (data) => settle({ data, loading: false }),
      (error: unknown) => settle({ error, loading: false }),
    );
  }, [key, round]);

  const reload = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiting.current.push(resolve);
        setRound((n) => n + 1);
      }),
    [],
  );
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
