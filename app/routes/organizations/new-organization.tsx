import { getFormProps } from "@conform-to/react";
import { useEffect, useRef } from "react";
import { Form, useActionData, useFetcher } from "react-router";
import type { Route } from "./+types/new-organization";
import type { loader as checkSlugLoader } from "~/routes/resources/check-slug";
import { SubmitButton } from "~/components/ui/Button";
import { useErrorText } from "~/components/ui/error-text";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { Section } from "~/components/ui/Section";
import { localizePath } from "~/i18n/config";
import { createOrganizationSchema } from "~/lib/organization-forms";
import { SLUG_MAX } from "~/lib/form-limits";
import { isSlug, slugify } from "~/lib/organization-paths";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { requireUser } from "~/server/auth/guards.server";
import { cookieHeaders } from "~/server/forms.server";
import { createOrganization } from "~/server/organization/organizations.server";
import { freeSlug, organizationT } from "~/server/organization/pages.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export function loader({ context }: Route.LoaderArgs) {
  requireUser(context);
  return { meta: pageMeta(context, "newOrganization") };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** Creates the organization (it becomes the active one) and opens its page. */
export const action = pageAction({
  auth: "required",
  intents: (intent) => ({
    "create-organization": intent({
      schema: createOrganizationSchema,
      rateLimit: "/organization/create",
      fields: { ORGANIZATION_ALREADY_EXISTS: "slug", ORGANIZATION_SLUG_ALREADY_TAKEN: "slug" },
      async run({ args: { context }, auth, meta, locale, value }) {
        const { name } = value;
        // Without JavaScript nobody suggested a slug while the name was typed: the server does.
        const slug = value.slug ?? (await freeSlug(name));
        const { organization, setCookies } = await createOrganization({ auth }, { name, slug }, meta);
        return redirectWithToast(
          localizePath(`/organizations/${organization.slug}`, locale),
          { type: "success", title: organizationT(context)("new.created", { name: organization.name }) },
          { headers: cookieHeaders(setCookies) },
        );
      },
    }),
  }),
});

export default function NewOrganization({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  return (
    <div className="flex max-w-3xl flex-col gap-8">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
      </div>
      <Section id="create" title={t("new.title")} description={t("new.description")}>
        <NewOrganizationForm />
      </Section>
    </div>
  );
}

function NewOrganizationForm() {
  const { t } = useTranslation("organization");
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("create-organization");
  const [form, fields] = usePageForm(() => import("~/lib/organization-forms").then((m) => m.createOrganizationSchema), {
    lastResult: actionData?.result,
  });
  // The slug follows the name until the person types one of their own (or clears theirs).
  const slugTyped = useRef(false);
  return (
    <Form method="post" {...getFormProps(form)} className="flex max-w-md flex-col gap-4">
      <input type="hidden" name="intent" value="create-organization" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field
        field={fields.name}
        type="text"
        label={t("form.name")}
        inputProps={{
          autoComplete: "organization",
          autoFocus: true,
          onChange: (event) => {
            if (!slugTyped.current) form.update({ name: fields.slug.name, value: slugify(event.currentTarget.value) });
          },
        }}
      />
      <div className="flex flex-col gap-1">
        <Field
          field={fields.slug}
          type="text"
          label={t("form.slug")}
          hint={t("new.slugHint")}
          inputProps={{
            autoComplete: "off",
            spellCheck: false,
            maxLength: SLUG_MAX,
            onChange: (event) => (slugTyped.current = event.currentTarget.value !== ""),
          }}
        />
        <SlugStatus slug={fields.slug.value ?? ""} />
      </div>
      <div>
        <SubmitButton pending={pending} pendingLabel={t("new.pending")}>
          {t("new.submit")}
        </SubmitButton>
      </div>
    </Form>
  );
}

/** Whether the slug is free, asked of the server a moment after typing stops (JavaScript only). */
function SlugStatus({ slug }: { slug: string }) {
  const { t } = useTranslation("organization");
  const text = useErrorText();
  const { load, data, state } = useFetcher<typeof checkSlugLoader>({ key: "check-slug" });
  const checkable = isSlug(slug);
  useEffect(() => {
    if (!checkable) return;
    const timer = setTimeout(() => void load(`/check-slug?slug=${encodeURIComponent(slug)}`), 250);
    return () => clearTimeout(timer);
  }, [checkable, slug, load]);
  const answer = checkable && data?.slug === slug ? data : undefined;
  return (
    <p
      role="status"
      data-testid="slug-status"
      data-available={answer ? !answer.error : undefined}
      className={`min-h-5 text-sm ${answer?.error ? "text-red-700 dark:text-red-400" : "text-primary-700 dark:text-primary-300"}`}
    >
      {state === "loading"
        ? t("new.slugChecking")
        : !answer
          ? null
          : answer.error
            ? text(answer.error)
            : t("new.slugAvailable")}
    </p>
  );
}
