import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
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
 * A modal built on <dialog>: the browser keeps focus inside it, Escape cancels, and focus returns
 * to the control that opened it when it closes.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  // A dialog starts the next task: what the status line said of the last one is done with.
  useClearedStatusLine(!props.keepsStatusLine);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
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
      <h2 id="dialog-title">{props.title}</h2>
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
