import { Outlet } from "react-router";
import type { Route } from "./+types/layout";
import { RoleBadge } from "~/components/RoleBadge";
import { SectionNav } from "~/components/SectionNav";
import { organizationPath } from "~/lib/organization-forms";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";

export const handle = { i18n: ["organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization's header (name, logo, the caller's role) and its sections' tabs, around
 * the section of the URL. An organization the caller is not in is a 404 here already.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  return {
    organization: { name: organization.name, slug: organization.slug, logo: organization.logo },
    role: caller.role,
    active: auth.session.activeOrganizationId === organization.id,
    // The invitations are for the roles that send or withdraw them; the others see no tab.
    invitations: can(caller, "invitation", ["create"]) || can(caller, "invitation", ["cancel"]),
    // Single sign-on is for the roles that manage it (owners and admins).
    sso: can(caller, "sso", ["manage"]),
    // The audit log is for the roles that may read it (owners and admins).
    auditLog: can(caller, "auditLog", ["read"]),
    // The custom roles are for the roles that may read them (owners and admins, or a role granted ac: read).
    roles: can(caller, "ac", ["read"]),
    // The organization's API keys are for the roles that manage them (owners and admins).
    apiKeys: can(caller, "apiKey", ["manage"]),
  };
}

export default function OrganizationWorkspace({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  const { organization } = loaderData;
  const path = (section: Parameters<typeof organizationPath>[1]) =>
    localize(organizationPath(organization.slug, section));
  const sections = [
    { to: path(""), label: t("nav.overview"), end: true },
    { to: path("members"), label: t("nav.members") },
    ...(loaderData.invitations ? [{ to: path("invitations"), label: t("nav.invitations") }] : []),
    { to: path("teams"), label: t("nav.teams") },
    { to: path("settings"), label: t("nav.settings") },
    { to: path("billing"), label: t("nav.billing") },
    ...(loaderData.sso ? [{ to: path("sso"), label: t("nav.sso") }] : []),
    ...(loaderData.roles ? [{ to: path("roles"), label: t("nav.roles") }] : []),
    ...(loaderData.auditLog ? [{ to: path("audit-log"), label: t("nav.auditLog") }] : []),
    ...(loaderData.apiKeys ? [{ to: path("api-keys"), label: t("nav.apiKeys") }] : []),
  ];
  return (
    <div className="flex flex-col">
      <header className="mb-6 flex items-center gap-4">
        {organization.logo ? (
          <img src={organization.logo} alt="" className="size-12 shrink-0 rounded-lg object-cover" />
        ) : (
          <span
            aria-hidden="true"
            className="flex size-12 shrink-0 items-center justify-center rounded-lg bg-primary-700 text-xl font-semibold text-white"
          >
            {organization.name.slice(0, 1).toUpperCase()}
          </span>
        )}
        <div className="min-w-0">
          <h1 className="truncate text-xl font-bold tracking-tight" data-testid="organization-name">
            {organization.name}
          </h1>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
            <span data-testid="organization-slug" className="truncate">
              {organization.slug}
            </span>
            <span className="sr-only">{t("nav.yourRole")}</span>
            <RoleBadge role={loaderData.role} />
            {loaderData.active ? (
              <span className="rounded-full bg-primary-100 px-2 py-0.5 text-xs font-medium text-primary-800 dark:bg-primary-900/50 dark:text-primary-200">
                {t("list.active")}
              </span>
            ) : null}
          </p>
        </div>
      </header>
      <SectionNav label={t("nav.label", { name: organization.name })} sections={sections} />
      <Outlet />
    </div>
  );
}
