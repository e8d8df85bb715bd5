/**
 * A list table of the console: scrolls sideways inside its own frame on a narrow window, has a
 * caption for screen readers (hidden unless `showCaption`), column headers, and a last header
 * cell named "Actions" for the rows' buttons (see RowActions) when `actions` is set.
 */
import type { ComponentChildren } from 'preact';

export interface DataColumn {
  label: string;
  /** Numbers are right-aligned. */
  numeric?: boolean;
}

export interface DataTableProps {
  caption: string;
  columns: (string | DataColumn)[];
  /** The rows end with a RowActions cell. */
  actions?: boolean;
  /** `compact`: a table inside a card, without a frame of its own. */
  variant?: 'compact';
  showCaption?: boolean;
  /** The `<tr>` rows. */
  children: ComponentChildren;
}

export function DataTable({ caption, columns, actions, variant, showCaption, children }: DataTableProps) {
  return (
    <div class={variant === 'compact' ? 'table-scroll' : 'table-wrap'}>
      <table class={variant}>
        <caption class={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => {
              const { label, numeric } = typeof column === 'string' ? { label: column, numeric: false } : column;
              return (
                <th key={label} scope="col" class={numeric ? 'number' : undefined}>
                  {label}
                </th>
              );
            })}
            {actions ? (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
