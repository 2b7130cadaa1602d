import { useLocation } from "react-router";
import { AppLink } from "~/components/AppLink";
import { numberFormat } from "~/lib/intl";
import { PAGE_SIZES, queryLink } from "~/lib/reports";
import { useTranslation } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";

/** A link among choices (a page, a size, a tab, a range); the chosen one has aria-current. */
export const choiceClass =
  "rounded-md px-2.5 py-1 hover:bg-slate-100 dark:hover:bg-slate-800 [&[aria-current]]:bg-primary-50 [&[aria-current]]:font-medium [&[aria-current]]:text-primary-800 dark:[&[aria-current]]:bg-primary-950 dark:[&[aria-current]]:text-primary-200";

/** The pages around the current one, with the first and last always there (null: a gap). */
export function pageWindow(page: number, pages: number): (number | null)[] {
  const wanted = new Set([1, pages, page - 1, page, page + 1].filter((n) => n >= 1 && n <= pages));
  const sorted = [...wanted].sort((a, b) => a - b);
  return sorted.flatMap((n, i) => (i > 0 && n - sorted[i - 1]! > 1 ? [null, n] : [n]));
}

/**
 * Server-side pages as plain links: where we are, the neighbouring pages, and the page size.
 * Every link keeps the rest of the query (filters, tabs); a new size starts at page 1.
 */
export function Pager({ page, pages, size, total }: { page: number; pages: number; size: number; total: number }) {
  const { t } = useTranslation("reports");
  const location = useLocation();
  const number = numberFormat(useLocale());
  const from = total === 0 ? 0 : (page - 1) * size + 1;
  const to = Math.min(total, page * size);
  return (
    <div className="flex flex-wrap items-center justify-between gap-4 text-sm" data-testid="pager">
      <p className="text-slate-600 dark:text-slate-400">
        {t("pager.showing", { from: number.format(from), to: number.format(to), total: number.format(total) })}
      </p>
      {pages > 1 ? (
        <nav aria-label={t("pager.label")}>
          <ul className="flex flex-wrap items-center gap-1">
            {page > 1 ? (
              <li>
                <AppLink to={queryLink(location, { page: page - 1 })} rel="prev" className={choiceClass}>
                  {t("pager.previous")}
                </AppLink>
              </li>
            ) : null}
            {pageWindow(page, pages).map((n, i) =>
              n === null ? (
                <li key={`gap-${i}`} aria-hidden className="px-1 text-slate-400">
                  …
                </li>
              ) : (
                <li key={n}>
                  <AppLink
                    to={queryLink(location, { page: n })}
                    aria-current={n === page ? "page" : undefined}
                    aria-label={t("pager.page", { page: number.format(n) })}
                    className={choiceClass}
                  >
                    {number.format(n)}
                  </AppLink>
                </li>
              ),
            )}
            {page < pages ? (
              <li>
                <AppLink to={queryLink(location, { page: page + 1 })} rel="next" className={choiceClass}>
                  {t("pager.next")}
                </AppLink>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}
      <nav aria-label={t("pager.size")} className="flex items-center gap-1">
        <span className="mr-1 text-slate-600 dark:text-slate-400">{t("pager.size")}</span>
        {PAGE_SIZES.map((option) => (
          <AppLink
            key={option}
            to={queryLink(location, { size: option, page: null })}
            aria-current={option === size ? "true" : undefined}
            className={choiceClass}
          >
            {number.format(option)}
          </AppLink>
        ))}
      </nav>
    </div>
  );
}
