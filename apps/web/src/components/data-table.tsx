import type { ReactNode } from "react";

/**
 * A table that scrolls sideways when narrow: one header row of `columns`, then `children` rows.
 * With the class "stack-narrow" (styles/layout.css), rows become blocks on a narrow screen
 * instead, each cell labelled by its `data-label`.
 */
export function DataTable({
  className,
  columns,
  children,
}: {
  className: string;
  columns: readonly string[];
  children: ReactNode;
}) {
  return (
    <div className="table-wrap">
      <table className={className}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
