/** Cancel and the form's submit button, the latter held while the change is on its way. */
export function FormButtons(props: { submit: string; onCancel: () => void; busy?: boolean; disabled?: boolean }) {
  return (
    <div class="buttons">
      <button type="button" class="secondary" onClick={props.onCancel}>
        Cancel
      </button>
      <button type="submit" disabled={props.busy || props.disabled}>
        {props.submit}
      </button>
    </div>
  );
}
