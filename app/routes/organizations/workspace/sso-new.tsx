import { getFormProps } from "@conform-to/react";
import type { Route } from "./+types/sso-new";
import { AppLink } from "~/components/AppLink";
import { EndpointFields, Fold, SamlSourceFields, type FieldOf } from "~/components/SsoFields";
import { BackLink } from "~/components/ui/BackLink";
import { SubmitButton } from "~/components/ui/Button";
import { Checkbox } from "~/components/ui/Checkbox";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { registerOidcSchema, registerSamlSchema } from "~/lib/sso-forms";
import { PROVIDER_ID_MAX } from "~/lib/form-limits";
import { ssoPath } from "~/lib/organization-paths";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import type { FieldErrors } from "~/server/forms.server";
import { oidcRedirectUri, samlMetadataUrl } from "~/server/sso/config.server";
import { registerProvider } from "~/server/sso/connections.server";
import { asPageRefusal, ssoOfPage, ssoT } from "~/server/sso/pages.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization", "sso"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The kind of connection being added: `?kind=saml`, else OpenID Connect. */
const kindOf = (url: URL) => (url.searchParams.get("kind") === "saml" ? "saml" : "oidc");

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization } = await ssoOfPage(url, auth, params.slug);
  const t = ssoT(context);
  return {
    meta: {
      title: t("meta.new.title", { name: organization.name }),
      description: t("meta.new.description", { name: organization.name }),
    },
    slug: organization.slug,
    kind: kindOf(url),
    // The callback address without its last part, the connection id still to be chosen.
    redirectUriBase: oidcRedirectUri("-").slice(0, -1),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof ssoOfPage>>;
type Ctx = IntentContext<"required", Page, unknown>;

/** Refusals shown next to the field they are about; the others (discovery, say) above the form. */
const COMMON_FIELDS: FieldErrors = {
  SSO_PROVIDER_ALREADY_EXISTS: "providerId",
  SSO_PROVIDER_ID_RESERVED: "providerId",
  INVALID_DOMAIN: "domain",
};
const SAML_FIELDS: FieldErrors = {
  ...COMMON_FIELDS,
  SAML_INVALID_IDP_METADATA: "metadata",
  SAML_INVALID_CERTIFICATE: "cert",
  CERT_SOURCE_MISSING: "cert",
  SAML_IDP_ENTITY_ID_REQUIRED: "entityId",
  SAML_ENTRY_POINT_REQUIRED: "entryPoint",
};

/** On to the new connection's page, where its domains are verified. */
function added({ args, locale, page }: Ctx, providerId: string) {
  return redirectWithToast(localizePath(ssoPath(page.organization.slug, providerId), locale), {
    type: "success",
    title: ssoT(args.context)("new.added", { provider: providerId }),
  });
}

export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => ssoOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "register-oidc": intent({
      schema: registerOidcSchema,
      rateLimit: "/sso/register",
      fields: COMMON_FIELDS,
      extra: () => ({ key: "register-oidc" }),
      async run(ctx) {
        const { providerId, domain, issuer, clientId, clientSecret, skipDiscovery, ...endpoints } = ctx.value;
        await asPageRefusal(() =>
          registerProvider(
            ctx.auth,
            {
              providerId,
              domain,
              issuer,
              organizationId: ctx.page.organization.id,
              oidcConfig: { clientId, clientSecret, skipDiscovery, ...endpoints },
            },
            ctx.meta,
          ),
        );
        return added(ctx, providerId);
      },
    }),
    "register-saml": intent({
      schema: registerSamlSchema,
      rateLimit: "/sso/register",
      fields: SAML_FIELDS,
      extra: () => ({ key: "register-saml" }),
      async run(ctx) {
        const { providerId, domain, metadata, metadataUrl, entityId, entryPoint, cert } = ctx.value;
        await asPageRefusal(() =>
          registerProvider(
            ctx.auth,
            {
              providerId,
              domain,
              // better-auth's SAML issuer is the service provider's entity id: ours, the SP metadata address.
              issuer: samlMetadataUrl(providerId),
              organizationId: ctx.page.organization.id,
              samlConfig: { entryPoint, cert, idpMetadata: { metadata, metadataUrl, entityID: entityId } },
            },
            ctx.meta,
          ),
        );
        return added(ctx, providerId);
      },
    }),
  }),
});

export default function NewConnection({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("sso");
  const localize = useLocalize();
  const { slug, kind } = loaderData;
  const here = localize(ssoPath(slug, undefined, "new"));
  const tabs = [
    { kind: "oidc", to: here, label: t("kind.oidc") },
    { kind: "saml", to: `${here}?kind=saml`, label: t("kind.saml") },
  ];
  return (
    <div className="flex flex-col gap-6">
      <BackLink to={localize(ssoPath(slug))}>{t("new.back")}</BackLink>
      <Section id="new-connection" title={t("new.title")} description={t("new.description")}>
        <nav aria-label={t("new.kind")} className="mb-5">
          <ul className="flex flex-wrap gap-2">
            {tabs.map((tab) => (
              <li key={tab.kind}>
                <AppLink
                  to={tab.to}
                  aria-current={tab.kind === kind ? "page" : undefined}
                  className="inline-flex rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium text-slate-700 hover:bg-slate-50 aria-[current=page]:border-primary-600 aria-[current=page]:bg-primary-50 aria-[current=page]:text-primary-800 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800 dark:aria-[current=page]:bg-primary-950 dark:aria-[current=page]:text-primary-200"
                >
                  {tab.label}
                </AppLink>
              </li>
            ))}
          </ul>
        </nav>
        {kind === "saml" ? <SamlForm /> : <OidcForm redirectUriBase={loaderData.redirectUriBase} />}
      </Section>
    </div>
  );
}

/** The fields every connection has: its id and its email domains. */
function IdentityFields({ fields }: { fields: { providerId: FieldOf; domain: FieldOf } }) {
  const { t } = useTranslation("sso");
  return (
    <>
      <Field
        field={fields.providerId}
        type="text"
        label={t("form.providerId")}
        hint={t("form.providerIdHint")}
        inputProps={{ autoComplete: "off", spellCheck: false, maxLength: PROVIDER_ID_MAX, placeholder: "okta" }}
      />
      <Field
        field={fields.domain}
        type="text"
        label={t("form.domain")}
        hint={t("form.domainHint")}
        inputProps={{ autoComplete: "off", spellCheck: false, placeholder: "example.com" }}
      />
    </>
  );
}

function OidcForm({ redirectUriBase }: { redirectUriBase: string }) {
  const { t } = useTranslation("sso");
  const { fetcher, form, fields, pending } = useSectionForm("register-oidc", () =>
    import("~/lib/sso-forms").then((m) => m.registerOidcSchema),
  );
  const advanced = [
    fields.discoveryEndpoint,
    fields.authorizationEndpoint,
    fields.tokenEndpoint,
    fields.jwksEndpoint,
    fields.userInfoEndpoint,
  ];
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
      <input type="hidden" name="intent" value="register-oidc" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <IdentityFields fields={fields} />
      <Field
        field={fields.issuer}
        type="url"
        label={t("form.issuer")}
        hint={t("form.issuerHint")}
        inputProps={{ autoComplete: "off", spellCheck: false, placeholder: "https://" }}
      />
      <p className="rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-700 dark:bg-slate-900 dark:text-slate-300">
        {t("new.redirectNote")}{" "}
        <code className="break-all" data-testid="redirect-uri-pattern">
          {redirectUriBase}
          <var>{t("new.idPlaceholder")}</var>
        </code>
      </p>
      <Field
        field={fields.clientId}
        type="text"
        label={t("form.clientId")}
        inputProps={{ autoComplete: "off", spellCheck: false }}
      />
      <Field
        field={fields.clientSecret}
        type="password"
        label={t("form.clientSecret")}
        hint={t("form.clientSecretHint")}
        inputProps={{ autoComplete: "new-password", spellCheck: false }}
      />
      <Fold
        testId="oidc-advanced"
        label={t("form.advanced")}
        open={[...advanced, fields.skipDiscovery].some((field) => field.errors?.length)}
      >
        <p className="text-sm text-slate-600 dark:text-slate-400">{t("form.advancedHint")}</p>
        <EndpointFields fields={fields} />
        <Checkbox field={fields.skipDiscovery} label={t("form.skipDiscovery")} />
      </Fold>
      <div>
        <SubmitButton pending={pending} pendingLabel={t("new.pending")} className="whitespace-nowrap">
          {t("new.submit")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}

function SamlForm() {
  const { t } = useTranslation("sso");
  const { fetcher, form, fields, pending } = useSectionForm("register-saml", () =>
    import("~/lib/sso-forms").then((m) => m.registerSamlSchema),
  );
  return (
    <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
      <input type="hidden" name="intent" value="register-saml" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <IdentityFields fields={fields} />
      <SamlSourceFields fields={fields} />
      <p className="text-sm text-slate-600 dark:text-slate-400">{t("new.samlNote")}</p>
      <div>
        <SubmitButton pending={pending} pendingLabel={t("new.pending")} className="whitespace-nowrap">
          {t("new.submit")}
        </SubmitButton>
      </div>
    </fetcher.Form>
  );
}
