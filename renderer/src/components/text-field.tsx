/**
 * A labelled input with its hint and the error under it: the error's paragraph is always there
 * (empty when fine) so `aria-describedby` never points at nothing, and a screen reader reads the
 * problem when the input is focused.
 */
export function FieldError({ id, text }: { id: string; text: string | null | undefined }) {
  return (
    <p id={id} class="field-error">
      {text ?? ''}
    </p>
  );
}

export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | null | undefined;
  /** Shows the input as invalid without a text of its own (the text is elsewhere). */
  invalid?: boolean;
  hint?: string | undefined;
  type?: 'text' | 'password' | 'number';
  inputMode?: 'numeric';
  autoFocus?: boolean;
  maxLength?: number;
  onBlur?: () => void;
}) {
  const errorId = `${props.id}-error`;
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        autoFocus={props.autoFocus}
        maxLength={props.maxLength}
        inputMode={props.inputMode}
        autoComplete={props.type === 'password' ? 'new-password' : 'off'}
        aria-invalid={props.error || props.invalid ? 'true' : undefined}
        aria-describedby={hintId ? `${errorId} ${hintId}` : errorId}
        onInput={(e) => props.onInput((e.currentTarget as HTMLInputElement).value)}
        onBlur={props.onBlur}
      />
      {props.hint ? (
        <p id={hintId} class="hint">
          {props.hint}
        </p>
      ) : null}
      <FieldError id={errorId} text={props.error} />
    </>
  );
}
