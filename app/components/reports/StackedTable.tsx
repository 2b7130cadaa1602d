import type { ComponentProps, ReactNode } from "react";
import { emptyListClass } from "~/components/ui/Table";

/**
 * A list that is a table from md up and a column of cards on a phone, so that a wide list
 * never makes the page scroll sideways. Below md the table, its body and its rows are blocks
 * and the header row is hidden; each row lays its cells out as a card with `stackedRow` (a
 * two-column grid: a cell takes one column, or both with col-span-2, in the order its
 * `order-*` class gives) and `stackedCell`, and names a cell whose meaning is not obvious
 * with a `StackedLabel`. `head` is the header row's cells; `empty`, when given, is shown
 * instead of the table.
 */
export function StackedTable({
  head,
  empty,
  className = "text-sm",
  frameClassName = "",
  children,
  ...table
}: ComponentProps<"table"> & { head: ReactNode; empty?: ReactNode; frameClassName?: string }) {
  if (empty) return <p className={emptyListClass}>{empty}</p>;
  return (
    <div className={`rounded-xl border border-slate-200 dark:border-slate-800 ${frameClassName}`}>
      <table className={`block w-full text-left md:table ${className}`} {...table}>
        {/* The shade is on the cells, so that the frame's round corners need not clip (a row's menu hangs out of it). */}
        <thead className="hidden text-xs text-slate-600 md:table-header-group dark:text-slate-400">
          <tr className="[&>th]:bg-slate-50 dark:[&>th]:bg-slate-900/60 [&>th:first-child]:rounded-tl-xl [&>th:last-child]:rounded-tr-xl">
            {head}
          </tr>
        </thead>
        <tbody className="block divide-y divide-slate-200 md:table-row-group dark:divide-slate-800">{children}</tbody>
      </table>
    </div>
  );
}

/** A row: a card (two columns) on a phone, a table row from md up (app.css: every row repeats it). */
export const stackedRow = "stacked-row";

/** A cell: a grid item of the card on a phone, a table cell from md up (app.css). */
export const stackedCell = "stacked-cell";

/** A cell's column name, written before its value on a phone only (the table has a header). */
export function StackedLabel({ children }: { children: ReactNode }) {
  return <span className="stacked-label">{children}</span>;
}
