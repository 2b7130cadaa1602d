import { useTranslation } from "~/lib/translations";
import { NavLink, Outlet } from "react-router";
import type { Route } from "./+types/admin";
import { Icon, type IconName } from "~/components/Icon";
import { Navbar } from "~/components/Navbar";
import { useLocalize } from "~/lib/use-root-data";
import { requireAdminMiddleware } from "~/server/auth/guards.server";

/** The admin console's own layout; only administrators get past the middleware. */
export const middleware: Route.MiddlewareFunction[] = [requireAdminMiddleware];
export const loader = () => null;

const menu: { path: string; labelKey: string; icon: IconName }[] = [
  { path: "/admin/dashboard", labelKey: "pages.adminDashboard", icon: "dashboard" },
];

export default function AdminLayout() {
  const { t } = useTranslation();
  const localize = useLocalize();
  return (
    <div className="flex min-h-screen flex-col">
      <Navbar />
      <div className="flex flex-1">
        <aside className="hidden w-60 shrink-0 border-r border-slate-200 p-4 md:block dark:border-slate-800">
          <p className="mb-3 px-3 text-xs font-semibold tracking-wider text-slate-500 uppercase">{t("nav.admin")}</p>
          <nav aria-label={t("nav.admin")}>
            <ul className="flex flex-col gap-1">
              {menu.map((item) => (
                <li key={item.path}>
                  <NavLink
                    to={localize(item.path)}
                    className="flex items-center gap-2 rounded-md px-3 py-2 text-sm hover:bg-slate-100 aria-[current=page]:bg-primary-50 aria-[current=page]:font-medium aria-[current=page]:text-primary-800 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-primary-950 dark:aria-[current=page]:text-primary-200"
                  >
                    <Icon name={item.icon} /> {t(item.labelKey)}
                  </NavLink>
                </li>
              ))}
            </ul>
          </nav>
        </aside>
        <main className="min-w-0 flex-1 p-6">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
