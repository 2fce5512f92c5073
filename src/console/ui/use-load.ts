import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
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

  useEffect(() => {
    const ticket = ++latest.current;
    setState((previous) => ({ data: previous.data, loading: true }));
    loadRef.current().then(
      (data) => {
        if (ticket === latest.current) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (ticket === latest.current) setState({ error, loading: false });
      },
    );
  }, [key, round]);

  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
