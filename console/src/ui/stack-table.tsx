import type { ComponentChildren, JSX } from 'preact';

/** A column heading; `num` right-aligns it as its cells are. */
export type Column = string | { readonly label: string; readonly num: true };

/**
 * A table whose rows stack (a label before each cell, from `data-label`) on narrow screens, in its
 * scrolling wrapper: the heading row from `columns`, the rows as children.
 */
export function StackTable({ testId, caption, columns, children }: { testId?: string; caption?: string; columns: readonly Column[]; children: ComponentChildren }): JSX.Element {
  return (
    <div class="table-wrap">
      <table class="stack" data-testid={testId}>
        {caption !== undefined ? <caption class="visually-hidden">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c) =>
              typeof c === 'string' ? (
                <th key={c} scope="col">
                  {c}
                </th>
              ) : (
                <th key={c.label} scope="col" class="num">
                  {c.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
