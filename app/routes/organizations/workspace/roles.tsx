import { getFormProps } from "@conform-to/react";
import { Outlet, useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/roles";
import { AppLink } from "~/components/AppLink";
import { PermissionGrid, usePermissionText } from "~/components/PermissionGrid";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { createRoleSchema, organizationPath, permissionOfCells } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationOfPage, organizationT, rolesOfPage } from "~/server/organization/pages.server";
import { can, grantsOf } from "~/server/organization/permissions.server";
import { createRole } from "~/server/organization/roles.server";
import { notFound } from "~/server/i18n.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization's custom roles, for the members whose roles may read them (the others have
 * no such tab, and find nothing here), and the new-role form for those who may create one:
 * its grid offers only what the caller holds.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  if (!can(caller, "ac", ["read"])) notFound(url.pathname);
  return {
    meta: pageMeta(context, "organizationRoles", { name: organization.name }),
    slug: organization.slug,
    grants: grantsOf(caller),
    roles: await rolesOfPage(auth, organization.id),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof organizationOfPage>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/** The new-role form: back to this section with a toast, or the form's errors. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => organizationOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "create-role": intent({
      schema: createRoleSchema,
      rateLimit: "/organization/create-role",
      fields: { ROLE_NAME_IS_ALREADY_TAKEN: "name", INVALID_RESOURCE: "permission" },
      extra: () => ({ key: "create-role" }),
      async run(ctx: Ctx<typeof createRoleSchema>) {
        const { organization } = ctx.page;
        const { roleData } = await createRole(
          ctx.auth,
          {
            role: ctx.value.name,
            permission: permissionOfCells(ctx.value.permission),
            organizationId: organization.id,
          },
          ctx.meta,
        );
        return redirectWithToast(
          localizePath(organizationPath(organization.slug, "roles"), ctx.locale),
          { type: "success", title: organizationT(ctx.args.context)("customRoles.created", { name: roleData.role }) },
          { headers: { "X-Remix-Replace": "true" } },
        );
      },
    }),
  }),
});

export default function Roles({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  // After a success the page is reloaded under a new location key: the form starts afresh.
  const { key } = useLocation();
  const here = useLocalize()(organizationPath(loaderData.slug, "roles"));
  const permissionText = usePermissionText();
  const { roles, grants } = loaderData;
  return (
    <div className="flex flex-col gap-8">
      <Section id="roles" title={t("customRoles.title")} description={t("customRoles.description")}>
        {roles.length ? (
          <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="role-list">
            {roles.map((role) => (
              <li
                key={role.id}
                data-role-name={role.role}
                className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3 text-sm"
              >
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium">{role.role}</p>
                  <p className="text-slate-600 dark:text-slate-400">{permissionText(role.permission)}</p>
                  <p className="text-slate-600 dark:text-slate-400">
                    {t("customRoles.memberCount", { count: role.memberCount })}
                  </p>
                </div>
                <div className="flex shrink-0 items-center gap-2">
                  <AppLink
                    to={`${here}/${role.id}`}
                    aria-label={t(grants.ac?.includes("update") ? "customRoles.editLabel" : "customRoles.viewLabel", {
                      name: role.role,
                    })}
                    className={buttonClass("secondary", "px-3 py-1.5 whitespace-nowrap")}
                  >
                    {t(grants.ac?.includes("update") ? "customRoles.edit" : "customRoles.view")}
                  </AppLink>
                  {grants.ac?.includes("delete") ? (
                    <AppLink
                      to={`${here}/${role.id}/delete`}
                      preventScrollReset
                      aria-label={t("customRoles.deleteLabel", { name: role.role })}
                      className={buttonClass("ghost", "px-3 py-1.5 whitespace-nowrap")}
                    >
                      {t("customRoles.delete")}
                    </AppLink>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("customRoles.empty")}</p>
        )}
      </Section>
      {grants.ac?.includes("create") ? (
        <Section id="create-role" title={t("customRoles.createTitle")} description={t("customRoles.createDescription")}>
          <CreateRoleForm key={`create-role-${key}`} grantable={grants} />
        </Section>
      ) : null}
      {/* A role's deletion is a child route, drawn as a dialog over the list. */}
      <Outlet />
    </div>
  );
}

function CreateRoleForm({ grantable }: { grantable: Record<string, readonly string[]> }) {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("create-role", createRoleSchema);
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-2xl flex-col gap-4">
      <input type="hidden" name="intent" value="create-role" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.name} type="text" label={t("customRoles.name")} inputProps={{ autoComplete: "off" }} />
      <PermissionGrid grantable={grantable} errorId={fields.permission.errorId} errors={fields.permission.errors} />
      <div>
        <SubmitButton pending={pending} pendingLabel={t("customRoles.createPending")} className="whitespace-nowrap">
          {t("customRoles.create")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
