/** "Are you sure?" for actions that cannot be undone; the safe choice has the focus. */
import { useState } from 'preact/hooks';
import { Dialog } from './dialog.js';
import { ErrorMessage } from './error-message.js';

export function ConfirmDialog(props: {
  title: string;
  text: string;
  action: string;
  danger?: boolean;
  onClose: () => void;
  onConfirm: () => Promise<void>;
}) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const confirm = async (): Promise<void> => {
    setBusy(true);
    try {
      await props.onConfirm();
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return (
    <Dialog title={props.title} onClose={props.onClose} role="alertdialog">
      <p>{props.text}</p>
      <ErrorMessage error={error} />
      <div class="buttons">
        <button type="button" class="secondary" onClick={props.onClose} autoFocus>
          Cancel
        </button>
        <button type="button" class={props.danger ? 'danger' : ''} onClick={confirm} disabled={busy}>
          {props.action}
        </button>
      </div>
    </Dialog>
  );
}
