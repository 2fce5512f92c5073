import { useEffect, useRef } from 'preact/hooks';
import { canTakeFocus, focusByScript, focusFallback, viewHeading } from './focus.ts';

/**
 * A new view says so, as a new page would: the page's title names it, and focus moves to its
 * heading, from where a screen reader reads on and Tab reaches the view's controls. `view` tells
 * one view from another (its fragment). The first view, as the page loads, leaves focus where the
 * browser puts it (at the top, the skip link next).
 */
export function useViewFocus(view: string, title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);

  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const from = document.activeElement;
    // Where the admin put focus while the view loaded (a field of it, the skip link) stays there.
    const untouched = () => {
      const now = document.activeElement;
      return now === from || now === document.body || !canTakeFocus(now);
    };
    /** True once the view shows its heading (focused if untouched). */
    const take = () => {
      const heading = viewHeading();
      if (!heading) return false;
      if (untouched()) focusByScript(heading);
      return true;
    };
    if (take()) return;
    // A view that loads before its heading shows: focus goes there once it does.
    const main = document.querySelector('main');
    if (!main) return;
    const observer = new MutationObserver(() => {
      if (take()) observer.disconnect();
    });
    observer.observe(main, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [view]);
}

/**
 * Focus is never dropped on the page's body: when the control that has it is removed or disabled
 * (a restored file's button turning "Current", a deleted row), it goes to the status line that
 * says what happened, or to the view's heading; when it is still there but lost focus all the
 * same (moved in the page: a browser drops focus from an element taken out and put back, as a
 * re-render may place it), it gets it back. An open dialog keeps focus itself (ConfirmDialog).
 */
export function useFocusKeeper(): void {
  useEffect(() => {
    let last: Element | null = null;
    // A click since focus last moved: focus on the body is then the admin's own (a click on the page's background).
    let clicked = false;
    const noteFocus = (event: FocusEvent) => {
      last = event.target instanceof Element ? event.target : null;
      clicked = false;
    };
    const notePointer = () => {
      clicked = true;
    };
    const keep = () => {
      if (document.querySelector('dialog[open]')) return;
      const active = document.activeElement;
      if (active !== null && active !== document.body) {
        if (!canTakeFocus(active)) {
          last = null;
          focusFallback();
        }
        return;
      }
      if (last === null) return;
      if (!canTakeFocus(last)) {
        last = null;
        focusFallback();
        // Not taken back from the admin's own click on the page's background, nor from outside the
        // page (tabbed on to the browser's own controls).
      } else if (!clicked && document.hasFocus()) last.focus();
    };
    const observer = new MutationObserver(keep);
    document.addEventListener('focusin', noteFocus);
    document.addEventListener('pointerdown', notePointer, true);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
    return () => {
      document.removeEventListener('focusin', noteFocus);
      document.removeEventListener('pointerdown', notePointer, true);
      observer.disconnect();
    };
  }, []);
}
