import { getFormProps } from "@conform-to/react";
import { Outlet, useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/teams";
import { AppLink } from "~/components/AppLink";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { createTeamSchema, organizationPath } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationOfPage, organizationT, teamsOfPage } from "~/server/organization/pages.server";
import { grantsOf } from "~/server/organization/permissions.server";
import { createTeam } from "~/server/organization/teams.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The teams, for every member to see; creating and removing show for the roles that may. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  return {
    meta: pageMeta(context, "organizationTeams", { name: organization.name }),
    slug: organization.slug,
    grants: grantsOf(caller),
    teams: await teamsOfPage(organization.id),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof organizationOfPage>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/** The new team form: back to this section with a toast, or the form's errors. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => organizationOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "create-team": intent({
      schema: createTeamSchema,
      rateLimit: "/organization/create-team",
      extra: () => ({ key: "create-team" }),
      async run(ctx: Ctx<typeof createTeamSchema>) {
        const { name } = ctx.value;
        const { organization } = ctx.page;
        await createTeam(ctx.auth, { name, organizationId: organization.id }, ctx.meta);
        return redirectWithToast(
          localizePath(organizationPath(organization.slug, "teams"), ctx.locale),
          { type: "success", title: organizationT(ctx.args.context)("teams.created", { name }) },
          { headers: { "X-Remix-Replace": "true" } },
        );
      },
    }),
  }),
});

export default function Teams({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  // After a success the page is reloaded under a new location key: the form starts afresh.
  const { key } = useLocation();
  const here = useLocalize()(organizationPath(loaderData.slug, "teams"));
  const { teams, grants } = loaderData;
  return (
    <div className="flex flex-col gap-8">
      <Section id="teams" title={t("teams.title")} description={t("teams.description")}>
        {teams.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="team-list">
            {teams.map((team) => (
              <li
                key={team.id}
                data-team={team.name}
                className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3 text-sm"
              >
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium">{team.name}</p>
                  <p className="text-slate-600 dark:text-slate-400">
                    {t("teams.memberCount", { count: team.memberCount })}
                  </p>
                </div>
                <div className="flex shrink-0 items-center gap-2">
                  <AppLink
                    to={`${here}/${team.id}`}
                    preventScrollReset
                    aria-label={t("teams.openLabel", { name: team.name })}
                    className={buttonClass("secondary", "px-3 py-1.5 whitespace-nowrap")}
                  >
                    {t("teams.open")}
                  </AppLink>
                  {grants.team?.includes("delete") ? (
                    <AppLink
                      to={`${here}/${team.id}/remove`}
                      preventScrollReset
                      aria-label={t("teams.removeLabel", { name: team.name })}
                      className={buttonClass("ghost", "px-3 py-1.5 whitespace-nowrap")}
                    >
                      {t("teams.remove")}
                    </AppLink>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("teams.empty")}</p>
        )}
      </Section>
      {grants.team?.includes("create") ? (
        <Section id="create-team" title={t("teams.createTitle")} description={t("teams.createDescription")}>
          <CreateTeamForm key={`create-team-${key}`} />
        </Section>
      ) : null}
      {/* A team's members and its removal are child routes, drawn as dialogs over the list. */}
      <Outlet />
    </div>
  );
}

function CreateTeamForm() {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("create-team", createTeamSchema);
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
      <input type="hidden" name="intent" value="create-team" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.name} type="text" label={t("teams.name")} inputProps={{ autoComplete: "off" }} />
      <div>
        <SubmitButton pending={pending} pendingLabel={t("teams.createPending")} className="whitespace-nowrap">
          {t("teams.create")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
