interface RowButtonProps {
  label: string;
  /** The row's button said with its row ("Delete a.txt"): a screen reader's list of buttons has no rows. */
  'aria-label': string;
  onClick(): void;
  /** A destructive action is styled as one. */
  danger?: boolean;
  disabled?: boolean;
  /** The id of the text saying why it is disabled (or what it does), read with the button. */
  describedBy?: string;
  /** While the row's action runs, the button says so (`pendingLabel`, "Restoring…"). */
  pending?: boolean;
  pendingLabel?: string;
}

/** A small button that acts on one row of a list or table. */
export function RowButton(props: RowButtonProps) {
  return (
    <button
      type="button"
      class={props.danger ? 'button button-small button-danger' : 'button button-small'}
      disabled={props.disabled}
      onClick={props.onClick}
      aria-label={props['aria-label']}
      aria-describedby={props.describedBy}
    >
      {props.pending && props.pendingLabel ? props.pendingLabel : props.label}
    </button>
  );
}
