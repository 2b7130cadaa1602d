import { AppLink } from "~/components/AppLink";
import { buttonClass } from "~/components/ui/Button";

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
 * Nothing when everything fits on one page.
 */
export function Pagination({
  page,
  pages,
  href,
  labels,
}: {
  page: number;
  pages: number;
  href: (page: number) => string;
  labels: { nav: string; previous: string; next: string; page: (page: number) => string };
}) {
  if (pages <= 1) return null;
  const link = buttonClass("ghost", "px-3 py-1.5");
  return (
    <nav aria-label={labels.nav} className="mt-4">
      <ul className="flex flex-wrap items-center gap-1 text-sm">
        {page > 1 ? (
          <li>
            <AppLink to={href(page - 1)} preventScrollReset rel="prev" className={link}>
              {labels.previous}
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
                preventScrollReset
                aria-label={labels.page(n)}
                aria-current={n === page ? "page" : undefined}
                className={n === page ? buttonClass("secondary", "px-3 py-1.5") : link}
              >
                {n}
              </AppLink>
            </li>
          ),
        )}
        {page < pages ? (
          <li>
            <AppLink to={href(page + 1)} preventScrollReset rel="next" className={link}>
              {labels.next}
            </AppLink>
          </li>
        ) : null}
      </ul>
    </nav>
  );
}
