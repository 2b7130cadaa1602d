import { getFormProps } from "@conform-to/react";
import { useLocation } from "react-router";
import type { Route } from "./+types/sso";
import { AppLink } from "~/components/AppLink";
import { SsoDomainState } from "~/components/SsoDomainState";
import { Icon } from "~/components/Icon";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { ssoRequiredSchema } from "~/lib/sso-forms";
import { ssoPath } from "~/lib/organization-paths";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationProviders } from "~/server/sso/connections.server";
import { setSsoRequired } from "~/server/sso/domains.server";
import { ssoOfPage, ssoT } from "~/server/sso/pages.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization", "sso"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization's connections (kind, issuer, domains and whether each is verified) and
 * whether it requires single sign-on, for its owners and admins; a 404 to the others.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization } = await ssoOfPage(url, auth, params.slug);
  const { providers, ssoRequired } = await organizationProviders(auth, organization.id);
  const t = ssoT(context);
  return {
    meta: {
      title: t("meta.list.title", { name: organization.name }),
      description: t("meta.list.description", { name: organization.name }),
    },
    slug: organization.slug,
    ssoRequired,
    hasVerifiedDomain: providers.some((provider) => provider.domains.some((domain) => domain.verified)),
    providers: providers.map((provider) => ({
      providerId: provider.providerId,
      type: provider.type,
      // What names the identity provider: the OIDC issuer, the SAML IdP's entity id.
      identity: provider.samlConfig?.idpEntityId ?? provider.issuer,
      domains: provider.domains.map(({ domain, verified }) => ({ domain, verified })),
    })),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** The requirement switch: back here with a toast, or the refusal (no verified domain). */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => ssoOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "set-sso-required": intent({
      schema: ssoRequiredSchema,
      rateLimit: "/sso/update-provider",
      extra: () => ({ key: "set-sso-required" }),
      async run({ auth, meta, locale, value, page, args }) {
        await setSsoRequired(auth, { organizationId: page.organization.id, required: value.required }, meta);
        return redirectWithToast(
          localizePath(ssoPath(page.organization.slug), locale),
          { type: "success", title: ssoT(args.context)(value.required ? "require.enabled" : "require.disabled") },
          { headers: { "X-Remix-Replace": "true" } },
        );
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function SingleSignOn({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("sso");
  const localize = useLocalize();
  const { key } = useLocation();
  const { providers, slug } = loaderData;
  return (
    <div className="flex flex-col gap-8">
      <Section id="connections" title={t("list.title")} description={t("list.description")}>
        <div className="flex flex-col gap-4">
          {providers.length ? (
            <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="connection-list">
              {providers.map((provider) => (
                <li
                  key={provider.providerId}
                  data-connection={provider.providerId}
                  className="flex flex-wrap items-center gap-x-4 gap-y-2 py-3 text-sm"
                >
                  <div className="min-w-0 flex-1">
                    <p className="flex flex-wrap items-center gap-2">
                      <span className="font-medium break-all">{provider.providerId}</span>
                      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs text-slate-700 dark:bg-slate-800 dark:text-slate-300">
                        {t(`kind.${provider.type}`)}
                      </span>
                    </p>
                    <p className="mt-0.5 text-slate-600 break-all dark:text-slate-400">{provider.identity}</p>
                    <ul className="mt-1 flex flex-wrap gap-x-3 gap-y-1" aria-label={t("list.domains")}>
                      {provider.domains.map((domain) => (
                        <li key={domain.domain} data-domain={domain.domain} className="flex items-center gap-1">
                          <SsoDomainState verified={domain.verified} />
                          <span className="break-all">{domain.domain}</span>
                        </li>
                      ))}
                    </ul>
                  </div>
                  <AppLink
                    to={localize(ssoPath(slug, provider.providerId))}
                    aria-label={t("list.openLabel", { provider: provider.providerId })}
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
          <div>
            <AppLink
              to={localize(ssoPath(slug, undefined, "new"))}
              className={buttonClass("primary", "whitespace-nowrap")}
              data-testid="add-connection"
            >
              {t("list.add")}
            </AppLink>
          </div>
        </div>
      </Section>
      <RequireSso key={`require-${key}`} data={loaderData} />
    </div>
  );
}

function RequireSso({ data }: { data: LoaderData }) {
  const { t } = useTranslation("sso");
  const { fetcher, form, pending } = useSectionForm("set-sso-required", () =>
    import("~/lib/sso-forms").then((m) => m.ssoRequiredSchema),
  );
  const { ssoRequired, hasVerifiedDomain } = data;
  return (
    <Section id="require-sso" title={t("require.title")} description={t("require.description")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
        <input type="hidden" name="intent" value="set-sso-required" />
        <input type="hidden" name="required" value={String(!ssoRequired)} />
        <p
          className="flex items-center gap-2 text-sm font-medium"
          data-testid="sso-required"
          data-required={ssoRequired}
        >
          <Icon name={ssoRequired ? "lock" : "info"} className="size-4 shrink-0" />
          {t(ssoRequired ? "require.on" : "require.off")}
        </p>
        <FormErrors id={form.errorId} errors={form.errors} />
        {!ssoRequired && !hasVerifiedDomain ? (
          <p className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
            {t("require.needsDomain")}
          </p>
        ) : null}
        <p className="text-sm text-slate-600 dark:text-slate-400">{t("require.escape")}</p>
        <div>
          <SubmitButton
            pending={pending}
            pendingLabel={t("require.pending")}
            variant={ssoRequired ? "secondary" : "primary"}
            disabled={!ssoRequired && !hasVerifiedDomain}
            className="whitespace-nowrap"
          >
            {t(ssoRequired ? "require.turnOff" : "require.turnOn")}
          </SubmitButton>
        </div>
      </fetcher.Form>
    </Section>
  );
}
