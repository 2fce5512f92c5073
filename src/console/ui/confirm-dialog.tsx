import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { canTakeFocus, focusByScript, returnFocus } from './focus.ts';
import { useClearedStatusLine } from './status-line.tsx';

interface ConfirmDialogProps {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  cancelLabel?: string;
  /** A destructive action's confirm button is styled as one. */
  danger?: boolean;
  busy?: boolean;
  /** A dialog that interrupts the task at hand (a renewed signature) leaves the status line as it is. */
  keepsStatusLine?: boolean;
  /** A dialog whose actions are inside it (a list to act on) has nothing to confirm: one button closes it. */
  closeOnly?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/**
 * A modal built on <dialog>: the browser keeps Tab inside it, Escape cancels, and focus returns
 * to the control that opened it when it closes (when that control is gone or disabled by then, to
 * the status line that says what the dialog did, or the view's heading). The browser would return
 * it itself, but the element is out of the page by the time it is closed.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleRef = useRef<HTMLHeadingElement>(null);
  // A dialog starts the next task: what the status line said of the last one is done with.
  useClearedStatusLine(!props.keepsStatusLine);
  useEffect(() => {
    const dialog = ref.current;
    // Until showModal moves it inside, focus is on the control that opened the dialog.
    const opener = document.activeElement;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      returnFocus(opener);
    };
  }, []);
  // Focus stays inside while the dialog is open: when a busy state disables the focused button, or
  // a next step (a new title: a plan after its form) replaces it, the title takes it, and a screen
  // reader reads the new step from there.
  useEffect(() => {
    const dialog = ref.current;
    const focused = document.activeElement;
    if (!dialog?.open || (dialog.contains(focused) && canTakeFocus(focused))) return;
    // A dialog opened over this one (a renewed signature) has the focus, rightly.
    if (focused?.closest('dialog[open]')) return;
    if (titleRef.current) focusByScript(titleRef.current);
  });
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby="dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        if (!props.busy) props.onCancel();
      }}
    >
      {/* Keyed by its words: another title is another step, and a new element the focus moves to. */}
      <h2 key={props.title} ref={titleRef} id="dialog-title">
        {props.title}
      </h2>
      <div class="dialog-body">{props.children}</div>
      <div class="dialog-actions">
        {!props.closeOnly && (
          <button type="button" class="button" onClick={props.onCancel} disabled={props.busy}>
            {props.cancelLabel ?? 'Cancel'}
          </button>
        )}
        <button
          type="button"
          class={props.danger ? 'button button-danger' : 'button button-primary'}
          onClick={props.onConfirm}
          disabled={props.busy}
        >
          {props.busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
