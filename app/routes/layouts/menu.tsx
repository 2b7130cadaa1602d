import { useTranslation } from "~/lib/translations";
import { NavLink, Outlet } from "react-router";
import type { Route } from "./+types/menu";
import { Footer } from "~/components/Footer";
import { Icon, type IconName } from "~/components/Icon";
import { Navbar } from "~/components/Navbar";
import { OrganizationSwitcher } from "~/components/OrganizationSwitcher";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession, requireUserMiddleware } from "~/server/auth/guards.server";
import { listOrganizations } from "~/server/organization/organizations.server";

/** The signed-in area: a side menu beside the page, and the organization switcher above it. */
export const middleware: Route.MiddlewareFunction[] = [requireUserMiddleware];

export async function loader({ context }: Route.LoaderArgs) {
  const { user, session } = requireAuthSession(context);
  const organizations = await listOrganizations(user.id);
  return {
    organizations: organizations.map(({ id, name, slug }) => ({ id, name, slug })),
    activeOrganizationId: session.activeOrganizationId ?? null,
  };
}

const menu: { path: string; labelKey: string; icon: IconName }[] = [
  { path: "/profile", labelKey: "pages.profile", icon: "user" },
  { path: "/organizations", labelKey: "pages.organizations", icon: "users" },
  { path: "/billing", labelKey: "pages.billing", icon: "credit-card" },
];

export default function MenuLayout({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const localize = useLocalize();
  return (
    <div className="flex min-h-screen flex-col">
      <Navbar />
      <div className="mx-auto flex w-full max-w-6xl flex-1 flex-col gap-8 px-4 py-10 md:flex-row">
        <nav aria-label={t("nav.account")} className="flex flex-col gap-4 md:w-56 md:shrink-0">
          <OrganizationSwitcher {...loaderData} />
          <ul className="flex gap-1 md:flex-col">
            {menu.map((item) => (
              <li key={item.path}>
                <NavLink
                  to={localize(item.path)}
                  prefetch="intent"
                  className="flex items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-600 hover:bg-slate-100 aria-[current=page]:bg-primary-50 aria-[current=page]:font-medium aria-[current=page]:text-primary-800 dark:text-slate-300 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-primary-950 dark:aria-[current=page]:text-primary-200"
                >
                  <Icon name={item.icon} /> {t(item.labelKey)}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <main className="min-w-0 flex-1">
          <Outlet />
        </main>
      </div>
      <Footer />
    </div>
  );
}
