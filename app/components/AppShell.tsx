import { useId, type ReactNode } from "react";
import { useLocation } from "react-router";
import { AppNavLink } from "~/components/AppLink";
import { adminMenu, type AdminMenuItem } from "~/config/admin-menu";
import { Footer } from "~/components/Footer";
import { Icon, type IconName } from "~/components/Icon";
import { Brand, ImpersonationBanner } from "~/components/Navbar";
import { LocaleSwitcher } from "~/components/LocaleSwitcher";
import { OrganizationSwitcher, type SwitcherOrganization } from "~/components/OrganizationSwitcher";
import { SearchPalette } from "~/components/SearchPalette";
import { ThemeSwitcher } from "~/components/ThemeSwitcher";
import { UserMenu } from "~/components/UserMenu";
import { useTranslation } from "~/lib/translations";
import { useLocalize, useRootData } from "~/lib/use-root-data";

export interface ShellData {
  organizations: SwitcherOrganization[];
  activeOrganizationId: string | null;
  /** The active organization's invitations section is theirs to open. */
  mayInvite: boolean;
  /** So is its single sign-on section. */
  mayManageSso: boolean;
  /** And its audit log. */
  mayReadAuditLog: boolean;
  /** And its outgoing webhooks. */
  mayManageWebhooks: boolean;
}

type NavItem = { path: string; labelKey: string; icon: IconName; end?: boolean };

/** The active organization's sections, in the order its own tabs show them. */
const organizationNav = (
  slug: string,
  {
    mayInvite,
    mayManageSso,
    mayReadAuditLog,
    mayManageWebhooks,
  }: Pick<ShellData, "mayInvite" | "mayManageSso" | "mayReadAuditLog" | "mayManageWebhooks">,
): NavItem[] => [
  { path: `/organizations/${slug}`, labelKey: "nav.overview", icon: "home", end: true },
  { path: `/organizations/${slug}/members`, labelKey: "nav.members", icon: "users" },
  ...(mayInvite
    ? [{ path: `/organizations/${slug}/invitations`, labelKey: "nav.invitations", icon: "arrow-right" as const }]
    : []),
  { path: `/organizations/${slug}/teams`, labelKey: "nav.teams", icon: "layers" },
  { path: `/organizations/${slug}/settings`, labelKey: "nav.organizationSettings", icon: "settings" },
  { path: `/organizations/${slug}/billing`, labelKey: "nav.organizationBilling", icon: "credit-card" },
  ...(mayManageSso
    ? [{ path: `/organizations/${slug}/sso`, labelKey: "nav.organizationSso", icon: "lock" as const }]
    : []),
  ...(mayManageWebhooks
    ? [{ path: `/organizations/${slug}/webhooks`, labelKey: "nav.organizationWebhooks", icon: "zap" as const }]
    : []),
  ...(mayReadAuditLog
    ? [{ path: `/organizations/${slug}/audit-log`, labelKey: "nav.organizationAuditLog", icon: "file-text" as const }]
    : []),
];

const accountNav: NavItem[] = [
  { path: "/profile", labelKey: "nav.settings", icon: "user" },
  { path: "/organizations", labelKey: "pages.organizations", icon: "users", end: true },
  { path: "/billing", labelKey: "nav.billing", icon: "credit-card" },
];

/**
 * The signed-in pages' frame: a side navigation on a desktop; on a phone the same navigation
 * folds behind a menu button in the top bar. The button is the label of a checkbox, so it
 * opens and closes without JavaScript; keyed by the location, it closes after a navigation.
 * Every page inside gets one content width.
 */
export function AppShell({ shell, children }: { shell: ShellData; children: ReactNode }) {
  const { t } = useTranslation();
  const user = useRootData()?.user ?? null;
  const location = useLocation();
  const menuId = useId();
  const active = shell.organizations.find((organization) => organization.id === shell.activeOrganizationId);
  return (
    <div className="flex min-h-screen flex-col">
      {user?.impersonated ? <ImpersonationBanner name={user.name} /> : null}
      <div
        data-shell
        className="flex flex-1 flex-col lg:grid lg:grid-cols-[16rem_minmax(0,1fr)] lg:grid-rows-[auto_1fr]"
      >
        <input
          key={location.key}
          id={menuId}
          type="checkbox"
          aria-label={t("nav.menu")}
          className="menu-toggle peer sr-only lg:hidden"
        />
        <header className="sticky top-0 z-30 flex h-14 items-center gap-2 border-b border-slate-200 bg-white/90 px-4 backdrop-blur lg:col-start-2 lg:row-start-1 lg:px-6 dark:border-slate-800 dark:bg-slate-950/90">
          <label
            htmlFor={menuId}
            title={t("nav.menu")}
            data-testid="shell-menu-button"
            className="menu-button -ml-2 flex cursor-pointer items-center rounded-md p-2 text-slate-700 hover:bg-slate-100 lg:hidden dark:text-slate-300 dark:hover:bg-slate-800"
          >
            <Icon name="menu" />
          </label>
          <span className="lg:hidden">
            <Brand to="/dashboard" />
          </span>
          <div className="ml-auto flex items-center gap-3">
            <SearchPalette />
            {user ? <UserMenu user={user} /> : null}
          </div>
        </header>
        <aside
          data-testid="app-nav"
          className="fixed inset-x-0 top-14 bottom-0 z-20 hidden overflow-y-auto border-slate-200 bg-white px-3 py-4 peer-checked:block lg:sticky lg:top-0 lg:col-start-1 lg:row-span-2 lg:row-start-1 lg:flex lg:h-screen lg:flex-col lg:border-r dark:border-slate-800 dark:bg-slate-950"
        >
          <div className="mb-4 hidden h-6 items-center px-2 lg:flex">
            <Brand to="/dashboard" />
          </div>
          <OrganizationSwitcher organizations={shell.organizations} activeOrganizationId={shell.activeOrganizationId} />
          <nav aria-label={t("nav.app")} className="mt-4 flex flex-1 flex-col gap-5">
            <NavGroup items={[{ path: "/dashboard", labelKey: "nav.dashboard", icon: "dashboard" }]} />
            {active ? <NavGroup title={active.name} items={organizationNav(active.slug, shell)} /> : null}
            <NavGroup title={t("nav.account")} items={accountNav} />
            {user?.isAdmin ? <AdminGroup /> : null}
          </nav>
          <div className="mt-6 flex flex-wrap items-center gap-2 border-t border-slate-200 px-2 pt-4 dark:border-slate-800">
            <LocaleSwitcher />
            <ThemeSwitcher />
          </div>
        </aside>
        <div className="flex min-w-0 flex-1 flex-col lg:col-start-2 lg:row-start-2">
          <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 sm:px-6">{children}</main>
          <Footer />
        </div>
      </div>
    </div>
  );
}

function NavGroup({ title, items }: { title?: string; items: (NavItem | AdminMenuItem)[] }) {
  const { t } = useTranslation();
  const localize = useLocalize();
  return (
    <div>
      {title ? (
        <p className="truncate px-3 pb-1 text-xs font-semibold text-slate-500 dark:text-slate-400">{title}</p>
      ) : null}
      <ul className="flex flex-col gap-0.5">
        {items.map((item) => (
          <li key={item.path}>
            <AppNavLink
              to={localize(item.path)}
              end={"end" in item ? item.end : false}
              prefetch="intent"
              className="nav-item"
            >
              <Icon name={item.icon} className="size-4 shrink-0" />
              <span className="truncate">{t(item.labelKey)}</span>
            </AppNavLink>
          </li>
        ))}
      </ul>
    </div>
  );
}

function AdminGroup() {
  const { t } = useTranslation();
  const items = adminMenu.flatMap((entry) => ("groupKey" in entry ? entry.items : [entry]));
  return <NavGroup title={t("nav.admin")} items={items} />;
}
