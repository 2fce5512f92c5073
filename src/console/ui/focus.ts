/**
 * Where keyboard focus goes when what had it goes away: a closed dialog's opener, a new view's
 * heading, the status line after an action. Focus left on the page's body sends a keyboard user
 * back to the top of the page and leaves a screen reader saying nothing.
 */

/** An element that can take focus now: still in the page, and not a disabled control. */
export function canTakeFocus(element: Element | null | undefined): element is HTMLElement {
  return element instanceof HTMLElement && element.isConnected && !element.matches(':disabled');
}

/** The view's heading (its h1); undefined while the view has none yet. */
export function viewHeading(): HTMLElement | undefined {
  return document.querySelector<HTMLElement>('main h1') ?? undefined;
}

/** Moves focus to an element that is no control (a heading, a message): focusable by script only, no Tab stop. */
export function focusByScript(element: HTMLElement): void {
  element.tabIndex = -1;
  element.focus();
}

/**
 * Where focus goes when the control that had it is gone or disabled (restored, deleted, done):
 * the status line, which says what the action did and offers its undo, or else the view's heading.
 */
export function focusFallback(): void {
  const target = document.querySelector<HTMLElement>('main .status-line') ?? viewHeading();
  if (target) focusByScript(target);
}

/** Focus back where it was before a dialog opened, or to the fallback when that control is gone or disabled now. */
export function returnFocus(opener: Element | null): void {
  if (canTakeFocus(opener)) opener.focus();
  else focusFallback();
}

/**
 * The skip link's click: focus to the main content, the URL left alone (the hash router would
 * take `#main` for a route).
 */
export function skipToMain(event: MouseEvent): void {
  event.preventDefault();
  document.getElementById('main')?.focus();
}
