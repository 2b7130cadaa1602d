import { Form, useNavigation } from "react-router";
import type { Route } from "./+types/organizations";
import { AppLink } from "~/components/AppLink";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { emptyListClass } from "~/components/ui/Table";
import { localizePath, type Locale } from "~/i18n/config";
import { setActiveSchema } from "~/lib/organization-forms";
import { safeRedirect } from "~/lib/safe-redirect";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { loadEnv } from "~/server/env.server";
import { cookieHeaders } from "~/server/forms.server";
import { listUserInvitations } from "~/server/organization/invitations.server";
import { setActiveOrganization } from "~/server/organization/organizations.server";
import { organizationsWithRoles, organizationT } from "~/server/organization/pages.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";
import { RoleBadge } from "~/components/RoleBadge";

export const handle = { i18n: ["organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  // Only a proven address sees the invitations sent to it; an unverified one sees none.
  const invitations = auth.user.emailVerified ? await listUserInvitations(auth) : [];
  return {
    meta: pageMeta(context, "organizations"),
    organizations: await organizationsWithRoles(auth.user.id),
    activeOrganizationId: auth.session.activeOrganizationId ?? null,
    invitations: invitations.map(({ id, organizationName, role }) => ({ id, organizationName, role })),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** Where a switch goes back to: the switcher's page (`redirectTo`) when on this site, else this list. */
const back = ({ value, locale }: { value: { redirectTo?: string }; locale: Locale }) =>
  safeRedirect(value.redirectTo, [loadEnv().BASE_URL]) ?? localizePath("/organizations", locale);

/**
 * Sets the active organization: this page's buttons and the menu's switcher post here. Back
 * to `redirectTo` (the switcher's page) or this list, with a toast either way.
 */
export const action = pageAction({
  auth: "required",
  intents: (intent) => ({
    "set-active": intent({
      schema: setActiveSchema,
      rateLimit: "/organization/set-active",
      // A refusal goes back too, to the switcher's page.
      refusal: "toast",
      toastTo: back,
      async run(ctx) {
        const { organization, setCookies } = await setActiveOrganization(ctx.auth, {
          organizationId: ctx.value.organizationId,
        });
        const title = organizationT(ctx.args.context)("switched", { name: organization?.name });
        return redirectWithToast(back(ctx), { type: "success", title }, { headers: cookieHeaders(setCookies) });
      },
    }),
  }),
});

export default function Organizations({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  const { organizations, activeOrganizationId, invitations } = loaderData;
  return (
    <div className="flex max-w-3xl flex-col gap-8">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
        </div>
        <AppLink to={localize("/organizations/new")} className={buttonClass("primary")}>
          {t("list.create")}
        </AppLink>
      </div>
      {invitations.length ? (
        <section aria-labelledby="invitations-title" data-testid="pending-invitations">
          <h2 id="invitations-title" className="text-lg font-semibold">
            {t("list.invitations")}
          </h2>
          <ul className="mt-3 divide-y divide-slate-200 rounded-xl border border-primary-200 bg-primary-50/50 dark:divide-slate-800 dark:border-primary-900 dark:bg-primary-950/30">
            {invitations.map((invitation) => (
              <li key={invitation.id} className="flex flex-wrap items-center gap-4 px-5 py-4">
                <p className="min-w-0 flex-1 font-medium">{invitation.organizationName}</p>
                <RoleBadge role={invitation.role} />
                <AppLink
                  to={localize(`/invitations/${invitation.id}`)}
                  aria-label={t("list.invitationLabel", { name: invitation.organizationName })}
                  className={buttonClass("primary", "px-3 py-1.5")}
                >
                  {t("list.invitationOpen")}
                </AppLink>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {organizations.length ? (
        <ul
          className="divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white shadow-sm dark:divide-slate-800 dark:border-slate-800 dark:bg-slate-900/60"
          data-testid="organization-list"
        >
          {organizations.map((organization) => {
            const active = organization.id === activeOrganizationId;
            return (
              <li
                key={organization.id}
                data-slug={organization.slug}
                data-active={active || undefined}
                className="flex flex-wrap items-center gap-4 px-5 py-4"
              >
                <div className="min-w-0 flex-1">
                  <AppLink
                    to={localize(`/organizations/${organization.slug}`)}
                    className="font-medium text-primary-700 hover:underline dark:text-primary-300"
                  >
                    {organization.name}
                  </AppLink>
                  <p className="truncate text-sm text-slate-600 dark:text-slate-400">{organization.slug}</p>
                </div>
                <RoleBadge role={organization.role} />
                {active ? (
                  <span className="rounded-full bg-primary-100 px-2 py-0.5 text-xs font-medium text-primary-800 dark:bg-primary-900/50 dark:text-primary-200">
                    {t("list.active")}
                  </span>
                ) : (
                  <SwitchButton organization={organization} />
                )}
              </li>
            );
          })}
        </ul>
      ) : (
        <p className={emptyListClass}>{t("list.empty")}</p>
      )}
    </div>
  );
}

function SwitchButton({ organization }: { organization: { id: string; name: string } }) {
  const { t } = useTranslation("organization");
  const navigation = useNavigation();
  const pending = navigation.state !== "idle" && navigation.formData?.get("organizationId") === organization.id;
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="set-active" />
      <input type="hidden" name="organizationId" value={organization.id} />
      <SubmitButton
        variant="secondary"
        className="px-3 py-1.5"
        pending={pending}
        aria-label={t("list.switchLabel", { name: organization.name })}
      >
        {t("list.switch")}
      </SubmitButton>
    </Form>
  );
}
