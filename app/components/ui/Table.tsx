import type { ComponentProps, ReactNode } from "react";

/** An empty list's box, in place of its table or cards. */
export const emptyListClass =
  "rounded-xl border border-dashed border-slate-300 p-8 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400";

/**
 * A list as a table, scrolling sideways when it is wider than the screen. `head` is the header
 * row's cells (a <th scope="col"> each), the children are the rows. `framed`: a bordered box
 * with a shaded header, for a list that is its page's content (in a Section, the section is
 * the box). `empty`, when given, is shown instead of the table. `className` replaces the text
 * size (text-sm).
 */
export function Table({
  head,
  framed = false,
  empty,
  frameClassName = "",
  className = "text-sm",
  children,
  ...table
}: ComponentProps<"table"> & { head: ReactNode; framed?: boolean; empty?: ReactNode; frameClassName?: string }) {
  if (empty) return <p className={emptyListClass}>{empty}</p>;
  const frame = framed ? "rounded-xl border border-slate-200 dark:border-slate-800" : "";
  const shade = framed ? "bg-slate-50 dark:bg-slate-900/60" : "";
  return (
    <div className={`relative overflow-x-auto ${frame} ${frameClassName}`}>
      <table className={`w-full text-left ${className}`} {...table}>
        <thead className={`text-xs text-slate-600 dark:text-slate-400 ${shade}`}>
          <tr>{head}</tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-800">{children}</tbody>
      </table>
    </div>
  );
}
