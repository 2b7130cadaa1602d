import { Form, useLocation } from "react-router";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { organizationPath } from "~/lib/organization-paths";
import { useTranslation } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";

export interface SwitcherOrganization {
  id: string;
  name: string;
  slug: string;
}

/**
 * The signed-in shell's organization switcher: the active organization, the others as
 * buttons that make one active (a form post, so it works without JavaScript; the list page's
 * action answers and comes back here), and the way to all of them.
 */
export function OrganizationSwitcher({
  organizations,
  activeOrganizationId,
}: {
  organizations: SwitcherOrganization[];
  activeOrganizationId: string | null;
}) {
  const { t } = useTranslation();
  const localize = useLocalize();
  const location = useLocation();
  const active = organizations.find((organization) => organization.id === activeOrganizationId);
  const others = organizations.filter((organization) => organization !== active);
  const item = "menu-item";
  return (
    // Keyed by the location so that it closes once a switch (or any navigation) is done.
    <details key={location.key} className="relative" data-menu data-testid="organization-switcher">
      <summary
        aria-label={t("organizations.switcher")}
        className="flex cursor-pointer list-none items-center gap-2 rounded-md border border-slate-200 px-3 py-2 text-sm hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800"
      >
        <Icon name="users" className="size-4 shrink-0 text-slate-600 dark:text-slate-400" />
        <span className="min-w-0 flex-1 truncate font-medium" data-testid="active-organization">
          {active?.name ?? t("organizations.none")}
        </span>
        <Icon name="chevron-down" className="size-3 shrink-0" />
      </summary>
      <div className="absolute z-40 mt-1 w-64 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900">
        {others.length ? (
          <Form method="post" action={localize("/organizations")}>
            <input type="hidden" name="intent" value="set-active" />
            <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
            {others.map((organization) => (
              <button
                key={organization.id}
                type="submit"
                name="organizationId"
                value={organization.id}
                className={item}
              >
                <span className="truncate">{organization.name}</span>
              </button>
            ))}
          </Form>
        ) : null}
        <div className={others.length ? "mt-1 border-t border-slate-200 pt-1 dark:border-slate-700" : ""}>
          {active ? (
            // The active organization's own workspace: its overview, and its members straight away.
            <>
              <AppLink
                to={localize(organizationPath(active.slug))}
                className={item}
                data-testid="active-organization-link"
              >
                <span className="truncate">{t("organizations.open", { name: active.name })}</span>
              </AppLink>
              <AppLink to={localize(organizationPath(active.slug, "members"))} className={item}>
                {t("organizations.members")}
              </AppLink>
            </>
          ) : null}
          <AppLink to={localize("/organizations")} className={item}>
            {t("organizations.all")}
          </AppLink>
          <AppLink to={localize("/organizations/new")} className={item}>
            {t("organizations.create")}
          </AppLink>
        </div>
      </div>
    </details>
  );
}
