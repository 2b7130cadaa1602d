import { useTranslation } from "~/lib/translations";
import { NavLink, Outlet } from "react-router";
import type { Route } from "./+types/admin";
import { Icon } from "~/components/Icon";
import { adminMenu, type AdminMenuItem } from "~/config/admin-menu";
import { Navbar } from "~/components/Navbar";
import { useLocalize } from "~/lib/use-root-data";
import { requireAdminMiddleware } from "~/server/admin/pages.server";

/** The admin console's own layout; only administrators get past the middleware. */
export const middleware: Route.MiddlewareFunction[] = [requireAdminMiddleware];
export const loader = () => null;

/**
 * A side menu beside the page, collapsible (a <details>, so it needs no JavaScript): on a
 * phone it sits above the page and folds away; the navbar above keeps the language and theme
 * switchers and the admin's own menu (avatar, sign-out).
 */
export default function AdminLayout() {
  const { t } = useTranslation();
  return (
    <div className="flex min-h-screen flex-col">
      <Navbar />
      <div className="flex flex-1 flex-col md:flex-row">
        <details
          open
          className="group shrink-0 border-b border-slate-200 p-4 md:w-60 md:border-r md:border-b-0 md:open:w-60 md:[&:not([open])]:w-auto dark:border-slate-800"
        >
          <summary
            className="flex cursor-pointer list-none items-center gap-2 px-3 text-xs font-semibold tracking-wider text-slate-600 dark:text-slate-400 uppercase"
            title={t("nav.menu")}
          >
            <Icon name="menu" className="size-4" />
            <span className="group-[&:not([open])]:md:sr-only">{t("nav.admin")}</span>
          </summary>
          <nav aria-label={t("nav.admin")} className="mt-3">
            <ul className="flex flex-col gap-1">
              {adminMenu.map((entry) =>
                "groupKey" in entry ? (
                  <li key={entry.groupKey} className="mt-3">
                    <p className="px-3 pb-1 text-xs font-semibold text-slate-600 dark:text-slate-400">
                      {t(entry.groupKey)}
                    </p>
                    <ul className="flex flex-col gap-1">
                      {entry.items.map((item) => (
                        <MenuLink key={item.path} item={item} />
                      ))}
                    </ul>
                  </li>
                ) : (
                  <MenuLink key={entry.path} item={entry} />
                ),
              )}
            </ul>
          </nav>
        </details>
        <main className="min-w-0 flex-1 p-4 md:p-6">
          <Outlet />
        </main>
      </div>
    </div>
  );
}

function MenuLink({ item }: { item: AdminMenuItem }) {
  const { t } = useTranslation();
  const localize = useLocalize();
  return (
    <li>
      <NavLink
        to={localize(item.path)}
        className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-slate-100 aria-[current=page]:bg-primary-50 aria-[current=page]:font-medium aria-[current=page]:text-primary-800 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-primary-950 dark:aria-[current=page]:text-primary-200"
      >
        <Icon name={item.icon} /> {t(item.labelKey)}
      </NavLink>
    </li>
  );
}
