/**
 * The buttons at the end of a table row. Each visible label is short ("Edit"); its accessible
 * name says which row it acts on ("Edit Nightly export"), since a screen reader lists the
 * buttons of a page out of their rows.
 */
export interface RowAction {
  label: string;
  /** The accessible name, naming the row's object. */
  name: string;
  onClick: () => void;
  danger?: boolean;
  disabled?: boolean;
}

export function RowActions({ actions }: { actions: RowAction[] }) {
  return (
    <td class="row-actions">
      {actions.map((action) => (
        <button
          key={action.label}
          type="button"
          class={action.danger ? 'danger small' : 'secondary small'}
          aria-label={action.name}
          disabled={action.disabled}
          onClick={action.onClick}
        >
          {action.label}
        </button>
      ))}
    </td>
  );
}
