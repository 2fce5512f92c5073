import { useEffect, useRef } from 'preact/hooks';

/**
 * Runs `tick` every `ms` while the page is shown: a view of something the service does on its own
 * (a webhook's deliveries) stays current without a click. A hidden tab asks the service nothing,
 * and catches up the moment it is shown again.
 */
export function useEvery(ms: number, tick: () => void): void {
  const tickRef = useRef(tick);
  tickRef.current = tick;
  useEffect(() => {
    let timer: number | undefined;
    const follow = () => {
      window.clearInterval(timer);
      timer = document.visibilityState === 'visible' ? window.setInterval(() => tickRef.current(), ms) : undefined;
    };
    const shownAgain = () => {
      if (document.visibilityState === 'visible') tickRef.current();
      follow();
    };
    follow();
    document.addEventListener('visibilitychange', shownAgain);
    return () => {
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', shownAgain);
    };
  }, [ms]);
}
