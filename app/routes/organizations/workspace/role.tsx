import { getFormProps } from "@conform-to/react";
import type { z } from "zod";
import type { Route } from "./+types/role";
import { AppLink } from "~/components/AppLink";
import { PermissionGrid, usePermissionText } from "~/components/PermissionGrid";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { organizationPath, permissionOfCells, updateRoleSchema } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationT, roleOfPage } from "~/server/organization/pages.server";
import { grantsOf } from "~/server/organization/permissions.server";
import { updateRole } from "~/server/organization/roles.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * One custom role: its name and what it grants, as a form for a caller who may change it (the
 * grid offers what they hold), read-only for the others who may read roles.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller, role, editable } = await roleOfPage(url, auth, params.slug, params.roleId);
  return {
    meta: pageMeta(context, "organizationRole", { name: organization.name, role: role.role }),
    slug: organization.slug,
    role: { name: role.role, permission: role.permission },
    editable,
    grantable: grantsOf(caller),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof roleOfPage>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/** Saves the role's name and permissions and goes back to the list, or shows the form's errors. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => roleOfPage(url, auth, params.slug!, params.roleId!),
  intents: (intent) => ({
    "update-role": intent({
      schema: updateRoleSchema,
      rateLimit: "/organization/update-role",
      fields: { ROLE_NAME_IS_ALREADY_TAKEN: "name", INVALID_RESOURCE: "permission" },
      extra: () => ({ key: "update-role" }),
      async run(ctx: Ctx<typeof updateRoleSchema>) {
        const { organization, role } = ctx.page;
        const { roleData } = await updateRole(
          ctx.auth,
          {
            roleId: role.id,
            organizationId: organization.id,
            data: { roleName: ctx.value.name, permission: permissionOfCells(ctx.value.permission) },
          },
          ctx.meta,
        );
        return redirectWithToast(
          localizePath(organizationPath(organization.slug, "roles"), ctx.locale),
          { type: "success", title: organizationT(ctx.args.context)("customRoles.updated", { name: roleData.role }) },
          { headers: { "X-Remix-Replace": "true" } },
        );
      },
    }),
  }),
});

export default function Role({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(organizationPath(loaderData.slug, "roles"));
  const permissionText = usePermissionText();
  const { role } = loaderData;
  return (
    <div className="flex flex-col gap-8">
      <Section
        id="role"
        title={t("customRoles.editTitle", { name: role.name })}
        description={loaderData.editable ? t("customRoles.editDescription") : t("customRoles.readOnly")}
      >
        {loaderData.editable ? (
          <EditRoleForm role={role} grantable={loaderData.grantable} />
        ) : (
          <p className="text-sm" data-testid="role-permission">
            {permissionText(role.permission)}
          </p>
        )}
      </Section>
      <div>
        <AppLink to={back} className={buttonClass("ghost", "px-3 py-1.5")}>
          {t("customRoles.back")}
        </AppLink>
      </div>
    </div>
  );
}

function EditRoleForm({
  role,
  grantable,
}: {
  role: { name: string; permission: Record<string, readonly string[]> };
  grantable: Record<string, readonly string[]>;
}) {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("update-role", updateRoleSchema, { name: role.name });
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-2xl flex-col gap-4">
      <input type="hidden" name="intent" value="update-role" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.name} type="text" label={t("customRoles.name")} inputProps={{ autoComplete: "off" }} />
      <PermissionGrid
        grantable={grantable}
        checked={role.permission}
        errorId={fields.permission.errorId}
        errors={fields.permission.errors}
      />
      <div>
        <SubmitButton pending={pending} pendingLabel={t("customRoles.savePending")} className="whitespace-nowrap">
          {t("customRoles.save")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
