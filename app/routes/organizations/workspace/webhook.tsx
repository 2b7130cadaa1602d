import { Outlet } from "react-router";
import type { Route } from "./+types/webhook";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { WebhookState } from "~/components/WebhookState";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { FormErrors } from "~/components/ui/FormErrors";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { useRowForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { webhooksPath } from "~/lib/webhooks";
import { replayDeliverySchema, sendTestSchema, setWebhookEnabledSchema } from "~/lib/webhook-forms";
import { requireAuthSession } from "~/server/auth/guards.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { replayDelivery, sendTestEvent, setEndpointEnabled } from "~/server/webhooks/endpoints.server";
import { endpointOfPage, webhooksT } from "~/server/webhooks/pages.server";

export const handle = { i18n: ["auth", "organization", "webhooks"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * One endpoint: its address, event types and state, and its latest deliveries (status,
 * attempts, the last answer's code and first 2 KB), for the organization's owners and admins.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, endpoint } = await endpointOfPage(url, auth, params.slug, params.endpointId);
  const t = webhooksT(context);
  return {
    meta: {
      title: t("meta.endpoint.title", { name: organization.name }),
      description: t("meta.endpoint.description", { name: organization.name }),
    },
    slug: organization.slug,
    endpoint: {
      id: endpoint.id,
      url: endpoint.url,
      eventTypes: endpoint.eventTypes,
      enabled: endpoint.enabled,
      disabledReason: endpoint.disabledReason,
    },
    deliveries: endpoint.deliveries.map((delivery) => ({
      ...delivery,
      createdAt: delivery.createdAt.toISOString(),
      lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
      nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
    })),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof endpointOfPage>>;

/** Back to this page with a toast in the page's language. */
function back({ args, locale, page }: IntentContext<"required", Page, unknown>, toast: string) {
  return redirectWithToast(
    localizePath(webhooksPath(page.organization.slug, page.endpoint.id), locale),
    { type: "success", title: webhooksT(args.context)(toast) },
    { headers: { "X-Remix-Replace": "true" } },
  );
}

/** Turn on or off, send a test event, replay a delivery: each back here with a toast. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => endpointOfPage(url, auth, params.slug!, params.endpointId!),
  intents: (intent) => ({
    "set-enabled": intent({
      schema: setWebhookEnabledSchema,
      rateLimit: "/webhooks/update",
      extra: () => ({ key: "set-enabled" }),
      async run(ctx) {
        await setEndpointEnabled(ctx.auth, ctx.page.endpoint.id, ctx.value.enabled, ctx.meta);
        return back(ctx, ctx.value.enabled ? "endpoint.enabledToast" : "endpoint.disabledToast");
      },
    }),
    "send-test": intent({
      schema: sendTestSchema,
      rateLimit: "/webhooks/send-test",
      extra: () => ({ key: "send-test" }),
      async run(ctx) {
        await sendTestEvent(ctx.auth, ctx.page.endpoint.id, ctx.meta);
        return back(ctx, "endpoint.testSent");
      },
    }),
    replay: intent({
      schema: replayDeliverySchema,
      rateLimit: "/webhooks/replay",
      extra: (formData) => ({ key: `replay-${String(formData.get("deliveryId"))}` }),
      async run(ctx) {
        await replayDelivery(ctx.auth, ctx.page.endpoint.id, ctx.value.deliveryId, ctx.meta);
        return back(ctx, "deliveries.replayed");
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function WebhookEndpoint({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("webhooks");
  const localize = useLocalize();
  const { slug, endpoint } = loaderData;
  return (
    <div className="flex flex-col gap-8">
      <p>
        <AppLink
          to={localize(webhooksPath(slug))}
          className="inline-flex items-center gap-1 text-sm text-primary-700 hover:underline dark:text-primary-300"
        >
          <Icon name="arrow-right" className="size-3 shrink-0 rotate-180" />
          {t("endpoint.back")}
        </AppLink>
      </p>
      <Section id="endpoint" title={t("endpoint.title")} description={t("endpoint.description")}>
        <div className="flex flex-col gap-4 text-sm">
          <p className="flex flex-wrap items-center gap-2">
            <span className="font-medium break-all" data-testid="endpoint-url">
              {endpoint.url}
            </span>
            <WebhookState enabled={endpoint.enabled} disabledReason={endpoint.disabledReason} />
          </p>
          <p className="text-slate-600 dark:text-slate-400">
            {endpoint.eventTypes.map((type) => t(`events.${type}`)).join(", ")}
          </p>
          {endpoint.disabledReason === "failing" ? (
            <p className="rounded-md bg-amber-50 px-3 py-2 text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
              {t("endpoint.failingNote")}
            </p>
          ) : null}
          <div className="flex flex-wrap items-start gap-3">
            <SendTest disabled={!endpoint.enabled} />
            <SetEnabled enabled={endpoint.enabled} />
            <AppLink
              to={localize(webhooksPath(slug, endpoint.id, "remove"))}
              className={buttonClass("danger", "whitespace-nowrap")}
              data-testid="remove-endpoint"
            >
              {t("endpoint.remove")}
            </AppLink>
          </div>
        </div>
      </Section>
      <Deliveries deliveries={loaderData.deliveries} enabled={endpoint.enabled} />
      <Outlet />
    </div>
  );
}

function SendTest({ disabled }: { disabled: boolean }) {
  const { t } = useTranslation("webhooks");
  const { fetcher, errors, pending } = useRowForm("send-test");
  return (
    <fetcher.Form method="post" className="flex flex-col gap-1">
      <input type="hidden" name="intent" value="send-test" />
      <SubmitButton
        pending={pending}
        pendingLabel={t("endpoint.testPending")}
        disabled={disabled}
        className="whitespace-nowrap"
      >
        {t("endpoint.test")}
      </SubmitButton>
      <FormErrors errors={errors} />
    </fetcher.Form>
  );
}

function SetEnabled({ enabled }: { enabled: boolean }) {
  const { t } = useTranslation("webhooks");
  const { fetcher, errors, pending } = useRowForm("set-enabled");
  return (
    <fetcher.Form method="post" className="flex flex-col gap-1">
      <input type="hidden" name="intent" value="set-enabled" />
      <input type="hidden" name="enabled" value={String(!enabled)} />
      <SubmitButton
        variant="secondary"
        pending={pending}
        pendingLabel={t("endpoint.savePending")}
        className="whitespace-nowrap"
      >
        {t(enabled ? "endpoint.disable" : "endpoint.enable")}
      </SubmitButton>
      <FormErrors errors={errors} />
    </fetcher.Form>
  );
}

function Deliveries({ deliveries, enabled }: { deliveries: LoaderData["deliveries"]; enabled: boolean }) {
  const { t } = useTranslation("webhooks");
  const locale = useLocale();
  return (
    <Section id="deliveries" title={t("deliveries.title")} description={t("deliveries.description")}>
      {deliveries.length ? (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="delivery-list">
          {deliveries.map((delivery) => (
            <li
              key={delivery.id}
              data-delivery={delivery.id}
              data-status={delivery.status}
              className="flex flex-col gap-2 py-3 text-sm"
            >
              <div className="flex flex-wrap items-center gap-x-6 gap-y-2">
                <div className="min-w-0 flex-1">
                  <span className="font-medium">{delivery.eventType}</span>{" "}
                  <span className="font-mono text-xs text-slate-600 dark:text-slate-400">{delivery.eventId}</span>
                </div>
                <Fact label={t("deliveries.status")}>
                  <span data-testid="delivery-status">{t(`deliveries.statuses.${delivery.status}`)}</span>
                </Fact>
                <Fact label={t("deliveries.attempts")}>
                  <span data-testid="delivery-attempts">{delivery.attempts}</span>
                </Fact>
                <Fact label={t("deliveries.response")}>
                  <span data-testid="delivery-response">
                    {delivery.lastResponseStatus ?? t("deliveries.noResponse")}
                  </span>
                </Fact>
                <Fact label={t("deliveries.created")}>
                  <LocalTime iso={delivery.createdAt} locale={locale} />
                </Fact>
                {delivery.nextAttemptAt ? (
                  <Fact label={t("deliveries.next")}>
                    <LocalTime iso={delivery.nextAttemptAt} locale={locale} />
                  </Fact>
                ) : null}
                {enabled && delivery.status !== "pending" ? (
                  <Replay id={delivery.id} eventType={delivery.eventType} />
                ) : null}
              </div>
              {delivery.lastResponseBody ? (
                <details>
                  <summary className="cursor-pointer text-slate-600 dark:text-slate-400">
                    {t("deliveries.body")}
                  </summary>
                  <pre className="mt-1 max-h-48 overflow-auto rounded bg-slate-50 p-2 text-xs break-all whitespace-pre-wrap dark:bg-slate-900">
                    {delivery.lastResponseBody}
                  </pre>
                </details>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-400">{t("deliveries.empty")}</p>
      )}
    </Section>
  );
}

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <span className="block text-xs text-slate-600 dark:text-slate-400">{label}</span>
      {children}
    </div>
  );
}

function Replay({ id, eventType }: { id: string; eventType: string }) {
  const { t } = useTranslation("webhooks");
  const { fetcher, errors, pending } = useRowForm(`replay-${id}`);
  return (
    <fetcher.Form method="post" className="flex flex-col items-end gap-1">
      <input type="hidden" name="intent" value="replay" />
      <input type="hidden" name="deliveryId" value={id} />
      <SubmitButton
        variant="secondary"
        pending={pending}
        pendingLabel={t("deliveries.replayPending")}
        aria-label={t("deliveries.replayLabel", { type: eventType })}
        className="px-3 py-1.5 whitespace-nowrap"
      >
        {t("deliveries.replay")}
      </SubmitButton>
      <FormErrors errors={errors} />
    </fetcher.Form>
  );
}
