import { getFormProps } from "@conform-to/react";
import { useActionData } from "react-router";
import type { Route } from "./+types/webhooks";
import { AppLink } from "~/components/AppLink";
import { WebhookState } from "~/components/WebhookState";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FieldErrors, FormErrors } from "~/components/ui/FormErrors";
import { Input } from "~/components/ui/Input";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_URL_MAX, webhooksPath } from "~/lib/webhooks";
import { createWebhookSchema } from "~/lib/webhook-forms";
import { requireAuthSession } from "~/server/auth/guards.server";
import type { FieldErrors as FieldErrorMap } from "~/server/forms.server";
import { pageAction } from "~/server/page-action.server";
import { createEndpoint, listEndpoints } from "~/server/webhooks/endpoints.server";
import { webhooksOfPage, webhooksT } from "~/server/webhooks/pages.server";

export const handle = { i18n: ["auth", "organization", "webhooks"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The organization's endpoints (address, event types, on or off), for its owners and admins; a 404 to the others. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization } = await webhooksOfPage(url, auth, params.slug);
  const endpoints = await listEndpoints(auth, organization.id);
  const t = webhooksT(context);
  return {
    meta: {
      title: t("meta.list.title", { name: organization.name }),
      description: t("meta.list.description", { name: organization.name }),
    },
    slug: organization.slug,
    endpoints: endpoints.map(({ id, url: address, eventTypes, enabled, disabledReason }) => ({
      id,
      url: address,
      eventTypes,
      enabled,
      disabledReason,
    })),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

const CREATE_FIELDS: FieldErrorMap = { INVALID_WEBHOOK_URL: "url", WEBHOOK_EVENT_TYPES_REQUIRED: "eventTypes" };

/**
 * Registers an endpoint. The answer carries its signing secret, shown once, with no redirect
 * so that it is never in a URL or the history; the list below shows the new endpoint.
 */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => webhooksOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "create-webhook": intent({
      schema: createWebhookSchema,
      rateLimit: "/webhooks/create",
      fields: CREATE_FIELDS,
      extra: () => ({ key: "create-webhook" }),
      async run({ auth, meta, locale, value, page }) {
        const { endpoint, secret } = await createEndpoint(
          auth,
          { organizationId: page.organization.id, url: value.url, eventTypes: value.eventTypes, locale },
          meta,
        );
        return { key: "create-webhook", created: { id: endpoint.id, url: endpoint.url, secret } };
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];
type Created = { key?: string; created?: { id: string; url: string; secret: string } } | undefined;

export default function Webhooks({ loaderData }: Route.ComponentProps) {
  return (
    <div className="flex flex-col gap-8">
      <EndpointList data={loaderData} />
      <NewEndpoint slug={loaderData.slug} />
    </div>
  );
}

function EndpointList({ data }: { data: LoaderData }) {
  const { t } = useTranslation("webhooks");
  const localize = useLocalize();
  return (
    <Section id="endpoints" title={t("list.title")} description={t("list.description")}>
      {data.endpoints.length ? (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="endpoint-list">
          {data.endpoints.map((endpoint) => (
            <li
              key={endpoint.id}
              data-endpoint={endpoint.id}
              className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3 text-sm"
            >
              <div className="min-w-0 flex-1">
                <p className="flex flex-wrap items-center gap-2">
                  <span className="font-medium break-all">{endpoint.url}</span>
                  <WebhookState enabled={endpoint.enabled} disabledReason={endpoint.disabledReason} />
                </p>
                <p className="mt-0.5 text-slate-600 dark:text-slate-400">
                  {endpoint.eventTypes.map((type) => t(`events.${type}`)).join(", ")}
                </p>
              </div>
              <AppLink
                to={localize(webhooksPath(data.slug, endpoint.id))}
                aria-label={t("list.openLabel", { url: endpoint.url })}
                className={buttonClass("secondary", "shrink-0 px-3 py-1.5 whitespace-nowrap")}
              >
                {t("list.open")}
              </AppLink>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-400">{t("list.empty")}</p>
      )}
    </Section>
  );
}

function NewEndpoint({ slug }: { slug: string }) {
  const { t } = useTranslation("webhooks");
  const localize = useLocalize();
  const { fetcher, form, fields, pending } = useSectionForm("create-webhook", () =>
    import("~/lib/webhook-forms").then((m) => m.createWebhookSchema),
  );
  const actionData = useActionData() as Created;
  const created = (fetcher.data as Created)?.created ?? actionData?.created;
  const chosen = new Set([fields.eventTypes.initialValue ?? []].flat());
  return (
    <Section id="new-endpoint" title={t("new.title")} description={t("new.description")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
        <input type="hidden" name="intent" value="create-webhook" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field
          field={fields.url}
          type="url"
          label={t("form.url")}
          hint={t("form.urlHint")}
          inputProps={{ autoComplete: "off", spellCheck: false, maxLength: WEBHOOK_URL_MAX, placeholder: "https://" }}
        />
        <fieldset aria-describedby={fields.eventTypes.errorId}>
          <legend className="text-sm font-medium">{t("form.eventTypes")}</legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-2">
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label key={type} className="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
                <input
                  type="checkbox"
                  name={fields.eventTypes.name}
                  value={type}
                  defaultChecked={chosen.has(type)}
                  className="size-4 rounded border-slate-300 accent-primary-600 dark:border-slate-600"
                />
                {t(`events.${type}`)}
              </label>
            ))}
          </div>
          <FieldErrors id={fields.eventTypes.errorId} errors={fields.eventTypes.errors} />
        </fieldset>
        <div>
          <SubmitButton pending={pending} pendingLabel={t("new.pending")} className="whitespace-nowrap">
            {t("new.submit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
      {created ? (
        <div
          className="mt-5 rounded-md border border-amber-200 bg-amber-50 p-4 text-sm dark:border-amber-900 dark:bg-amber-950/40"
          data-testid="webhook-secret"
        >
          <label htmlFor="webhook-secret" className="font-medium">
            {t("new.secret", { url: created.url })}
          </label>
          <Input
            id="webhook-secret"
            readOnly
            value={created.secret}
            aria-describedby="webhook-secret-hint"
            onFocus={(event) => event.currentTarget.select()}
            className="mt-1 font-mono text-xs"
          />
          <p id="webhook-secret-hint" className="mt-2 text-amber-900 dark:text-amber-200">
            {t("new.secretHint")}
          </p>
          <p className="mt-2">
            <AppLink
              to={localize(webhooksPath(slug, created.id))}
              className="text-primary-700 hover:underline dark:text-primary-300"
              data-testid="open-new-endpoint"
            >
              {t("new.open")}
            </AppLink>
          </p>
        </div>
      ) : null}
    </Section>
  );
}
