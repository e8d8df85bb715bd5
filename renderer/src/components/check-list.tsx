/** A group of checkboxes that chooses a subset (permissions, roles, actions), each with its help. */
export interface CheckOption<T extends string> {
  value: T;
  label: string;
  help?: string;
}

export function CheckList<T extends string>(props: {
  legend: string;
  /** Prefix of the checkboxes' ids: `${idPrefix}-${value}`. */
  idPrefix: string;
  options: readonly CheckOption<T>[];
  value: readonly T[];
  onChange: (next: T[]) => void;
  inline?: boolean;
  invalid?: boolean;
  describedBy?: string;
}) {
  return (
    <fieldset aria-describedby={props.describedBy}>
      <legend>{props.legend}</legend>
      {props.options.map((option) => {
        const id = `${props.idPrefix}-${option.value}`;
        return (
          <div class={props.inline ? 'check inline' : 'check'} key={option.value}>
            <input
              type="checkbox"
              id={id}
              checked={props.value.includes(option.value)}
              aria-invalid={props.invalid ? 'true' : undefined}
              aria-describedby={option.help ? `${id}-help` : undefined}
              onChange={(e) =>
                props.onChange(
                  (e.currentTarget as HTMLInputElement).checked
                    ? [...props.value, option.value]
                    : props.value.filter((v) => v !== option.value),
                )
              }
            />
            <label for={id}>{option.label}</label>
            {option.help ? (
              <p id={`${id}-help`} class="hint">
                {option.help}
              </p>
            ) : null}
          </div>
        );
      })}
    </fieldset>
  );
}
