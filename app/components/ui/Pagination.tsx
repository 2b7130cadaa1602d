import { AppLink } from "~/components/AppLink";
import { numberFormat } from "~/lib/intl";
import { useTranslation } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";

/** A link among choices (a page, a size, a tab, a range); the chosen one has aria-current. */
export const choiceClass =
  "rounded-md px-2.5 py-1 hover:bg-slate-100 dark:hover:bg-slate-800 [&[aria-current]]:bg-primary-50 [&[aria-current]]:font-medium [&[aria-current]]:text-primary-800 dark:[&[aria-current]]:bg-primary-950 dark:[&[aria-current]]:text-primary-200";

/** The pages worth a link: the first, the last, and the current one with its neighbours; null marks a gap. */
export function pageNumbers(page: number, pages: number): (number | null)[] {
  const shown = [...new Set([1, page - 1, page, page + 1, pages])]
    .filter((n) => n >= 1 && n <= pages)
    .sort((a, b) => a - b);
  return shown.flatMap((n, i) => (i > 0 && n - shown[i - 1]! > 1 ? [null, n] : [n]));
}

/**
 * Links to the pages of a list: previous, some page numbers, next. Plain links (`href` of a
 * page number), so paging works without JavaScript; the current page carries aria-current.
 * With `rows`, also which rows are shown of how many, and links to the other page sizes.
 * Nothing when everything fits on one page and there is no `rows`.
 */
export function Pagination({
  page,
  pages,
  href,
  label,
  rows,
  className = "",
}: {
  page: number;
  pages: number;
  href: (page: number) => string;
  /** The navigation's name when "Pages" would not say which list it pages. */
  label?: string;
  /** A new size starts at the first page: `sizeHref` leaves the page out. */
  rows?: { size: number; total: number; sizes: readonly number[]; sizeHref: (size: number) => string };
  className?: string;
}) {
  const { t } = useTranslation();
  const number = numberFormat(useLocale());
  if (pages <= 1 && !rows) return null;
  return (
    <div className={`flex flex-wrap items-center justify-between gap-4 text-sm ${className}`} data-testid="pager">
      {rows ? (
        <p className="text-slate-600 dark:text-slate-400">
          {t("pager.showing", {
            from: number.format(rows.total === 0 ? 0 : (page - 1) * rows.size + 1),
            to: number.format(Math.min(rows.total, page * rows.size)),
            total: number.format(rows.total),
          })}
        </p>
      ) : null}
      {pages > 1 ? (
        <nav aria-label={label ?? t("pager.label")}>
          <ul className="flex flex-wrap items-center gap-1">
            {page > 1 ? (
              <li>
                <AppLink to={href(page - 1)} rel="prev" className={choiceClass}>
                  {t("pager.previous")}
                </AppLink>
              </li>
            ) : null}
            {pageNumbers(page, pages).map((n, i) =>
              n === null ? (
                <li key={`gap-${i}`} aria-hidden="true" className="px-1 text-slate-500">
                  …
                </li>
              ) : (
                <li key={n}>
                  <AppLink
                    to={href(n)}
                    aria-label={t("pager.page", { page: number.format(n) })}
                    aria-current={n === page ? "page" : undefined}
                    className={choiceClass}
                  >
                    {number.format(n)}
                  </AppLink>
                </li>
              ),
            )}
            {page < pages ? (
              <li>
                <AppLink to={href(page + 1)} rel="next" className={choiceClass}>
                  {t("pager.next")}
                </AppLink>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}
      {rows ? (
        <nav aria-label={t("pager.size")} className="flex items-center gap-1">
          <span className="mr-1 text-slate-600 dark:text-slate-400">{t("pager.size")}</span>
          {rows.sizes.map((size) => (
            <AppLink
              key={size}
              to={rows.sizeHref(size)}
              aria-current={size === rows.size ? "true" : undefined}
              className={choiceClass}
            >
              {number.format(size)}
            </AppLink>
          ))}
        </nav>
      ) : null}
    </div>
  );
}
