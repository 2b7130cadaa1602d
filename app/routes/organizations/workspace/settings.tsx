import { getFormProps } from "@conform-to/react";
import { Outlet, useLocation } from "react-router";
import type { z } from "zod";
import type { Route } from "./+types/settings";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field, TextareaField } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { inputClass } from "~/components/ui/Input";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { organizationPath, SLUG_MAX, updateOrganizationSchema } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { loadEnv } from "~/server/env.server";
import { ownerCount, updateOrganization } from "~/server/organization/organizations.server";
import { organizationOfPage, organizationT } from "~/server/organization/pages.server";
import { can, takesLastOwner } from "~/server/organization/permissions.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization's name, slug and logo (its metadata folded under "Advanced") for the roles
 * that may change them; leaving, for everyone but the only owner, who is told why first; and
 * deleting, for the roles that may when deletion is allowed at all.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  return {
    meta: pageMeta(context, "organizationSettings", { name: organization.name }),
    organization: {
      name: organization.name,
      slug: organization.slug,
      logo: organization.logo,
      metadata: organization.metadata ? JSON.stringify(organization.metadata, null, 2) : "",
    },
    mayUpdate: can(caller, "organization", ["update"]),
    // The last-owner rule would refuse it: the section says so instead of offering it.
    mayLeave: !(await takesLastOwner(caller.role, null, () => ownerCount(organization.id))),
    mayDelete: can(caller, "organization", ["delete"]) && loadEnv().ORGANIZATION_DELETION,
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof organizationOfPage>>;
type Ctx<S extends z.ZodType> = IntentContext<"required", Page, z.output<S>>;

/** The settings form: back to this section (at the new slug) with a toast, or the form's errors. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => organizationOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "update-organization": intent({
      schema: updateOrganizationSchema,
      rateLimit: "/organization/update",
      fields: { ORGANIZATION_SLUG_ALREADY_TAKEN: "slug" },
      extra: () => ({ key: "update-organization" }),
      async run(ctx: Ctx<typeof updateOrganizationSchema>) {
        const { name, slug, logo, metadata } = ctx.value;
        const updated = await updateOrganization(
          ctx.auth,
          // An emptied field clears the logo or the metadata.
          {
            organizationId: ctx.page.organization.id,
            data: { name, slug, logo: logo ?? null, metadata: metadata ?? null },
          },
          ctx.meta,
        );
        return redirectWithToast(
          localizePath(organizationPath(updated.slug, "settings"), ctx.locale),
          { type: "success", title: organizationT(ctx.args.context)("settings.saved") },
          { headers: { "X-Remix-Replace": "true" } },
        );
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function Settings({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  // After a success the page is reloaded under a new location key: the form starts afresh.
  const { key } = useLocation();
  const here = useLocalize()(organizationPath(loaderData.organization.slug, "settings"));
  return (
    <div className="flex flex-col gap-8">
      {loaderData.mayUpdate ? <SettingsForm key={`settings-${key}`} organization={loaderData.organization} /> : null}
      <Section id="leave" title={t("leave.title")} description={t("leave.description")}>
        {loaderData.mayLeave ? (
          <AppLink to={`${here}/leave`} preventScrollReset className={buttonClass("secondary", "whitespace-nowrap")}>
            {t("leave.open")}
          </AppLink>
        ) : (
          <p
            className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200"
            data-testid="leave-sole-owner"
          >
            {t("leave.soleOwner")}
          </p>
        )}
      </Section>
      {loaderData.mayDelete ? (
        <Section id="danger" tone="danger" title={t("delete.title")} description={t("delete.description")}>
          <AppLink
            to={`${here}/delete`}
            preventScrollReset
            className={buttonClass("dangerOutline", "whitespace-nowrap")}
          >
            {t("delete.open")}
          </AppLink>
        </Section>
      ) : null}
      {/* The confirmations (leave, delete) are child routes, drawn as dialogs over the settings. */}
      <Outlet />
    </div>
  );
}

function SettingsForm({ organization }: { organization: LoaderData["organization"] }) {
  const { t } = useTranslation("organization");
  const { fetcher, form, fields, pending } = useSectionForm("update-organization", updateOrganizationSchema, {
    name: organization.name,
    slug: organization.slug,
    logo: organization.logo ?? "",
    metadata: organization.metadata,
  });
  return (
    <Section id="settings" title={t("settings.title")} description={t("settings.description")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
        <input type="hidden" name="intent" value="update-organization" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field field={fields.name} type="text" label={t("form.name")} inputProps={{ autoComplete: "organization" }} />
        <Field
          field={fields.slug}
          type="text"
          label={t("form.slug")}
          hint={t("settings.slugHint")}
          inputProps={{ autoComplete: "off", spellCheck: false, maxLength: SLUG_MAX }}
        />
        <Field
          field={fields.logo}
          type="url"
          label={t("settings.logo")}
          inputProps={{ placeholder: "https://", autoComplete: "off" }}
        />
        {/* Few need the metadata: folded away, and open when it holds an error to fix. */}
        <details
          data-testid="settings-advanced"
          open={fields.metadata.errors?.length ? true : undefined}
          className="group rounded-md border border-slate-200 px-4 py-3 dark:border-slate-800"
        >
          <summary className="flex cursor-pointer list-none items-center gap-2 text-sm font-medium">
            <Icon name="chevron-down" className="size-3 shrink-0 -rotate-90 transition-transform group-open:rotate-0" />
            {t("settings.advanced")}
          </summary>
          <div className="mt-3">
            <TextareaField
              field={fields.metadata}
              label={t("settings.metadata")}
              hint={t("settings.metadataHint")}
              textareaProps={{ rows: 4, spellCheck: false, className: `${inputClass} font-mono` }}
            />
          </div>
        </details>
        <div>
          <SubmitButton pending={pending} pendingLabel={t("settings.pending")} className="whitespace-nowrap">
            {t("settings.submit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
    </Section>
  );
}
