import { getFormProps } from "@conform-to/react";
import { Outlet, useLocation } from "react-router";
import type { Route } from "./+types/sso-connection";
import { AppLink } from "~/components/AppLink";
import { SsoDomainState } from "~/components/SsoDomainState";
import { CopyField, EndpointFields, Fold, SamlSourceFields } from "~/components/SsoFields";
import { BackLink } from "~/components/ui/BackLink";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { useRowForm, useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { updateOidcSchema, updateSamlSchema, verifyDomainSchema } from "~/lib/sso-forms";
import { ssoPath } from "~/lib/organization-paths";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import type { FieldErrors } from "~/server/forms.server";
import { updateProvider } from "~/server/sso/connections.server";
import { verifyDomain } from "~/server/sso/domains.server";
import { asPageRefusal, providerOfPage, setupValues, ssoT } from "~/server/sso/pages.server";
import { pageAction, type IntentContext } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization", "sso"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * One connection: what to enter at the identity provider, its domains with the TXT record
 * that verifies each, its settings (the client secret only as "stored"), and the ways on to
 * SCIM provisioning and to removing it.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, provider } = await providerOfPage(url, auth, params.slug, params.providerId);
  const t = ssoT(context);
  const { oidcConfig: oidc, samlConfig: saml } = provider;
  return {
    meta: {
      title: t("meta.connection.title", { provider: provider.providerId, name: organization.name }),
      description: t("meta.connection.description", { provider: provider.providerId }),
    },
    slug: organization.slug,
    providerId: provider.providerId,
    type: provider.type,
    issuer: provider.issuer,
    domain: provider.domain.split(",").join(", "),
    oidc: oidc
      ? {
          clientIdLastFour: oidc.clientIdLastFour,
          discoveryEndpoint: oidc.discoveryEndpoint ?? "",
          authorizationEndpoint: oidc.authorizationEndpoint,
          tokenEndpoint: oidc.tokenEndpoint,
          jwksEndpoint: oidc.jwksEndpoint,
          userInfoEndpoint: oidc.userInfoEndpoint ?? "",
        }
      : null,
    saml: saml
      ? {
          idpEntityId: saml.idpEntityId ?? "",
          entryPoint: saml.entryPoint,
          certificates: saml.certificate.map((cert) => ("error" in cert ? null : cert)),
        }
      : null,
    domains: provider.domains.map((entry) => ({
      domain: entry.domain,
      verified: entry.verified,
      verifiedAt: entry.verifiedAt?.toISOString() ?? null,
      record: entry.record,
    })),
    setup: await setupValues(provider.providerId),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Page = Awaited<ReturnType<typeof providerOfPage>>;
type Ctx = IntentContext<"required", Page, unknown>;

/** Back to this connection with a toast. */
function done({ locale, page }: Ctx, title: string) {
  return redirectWithToast(
    localizePath(ssoPath(page.organization.slug, page.provider.providerId), locale),
    { type: "success", title },
    { headers: { "X-Remix-Replace": "true" } },
  );
}

const EDIT_FIELDS: FieldErrors = {
  INVALID_DOMAIN: "domain",
  SAML_INVALID_IDP_METADATA: "metadata",
  SAML_INVALID_CERTIFICATE: "cert",
  SAML_ENTRY_POINT_REQUIRED: "entryPoint",
};

/** What differs from `current`: the edit form sends every field, the update takes only changes. */
function changes<T extends Record<string, string | undefined>>(value: T, current: Record<string, string | undefined>) {
  return Object.fromEntries(
    Object.entries(value).filter(([key, given]) => given && given !== current[key]),
  ) as Partial<T>;
}

export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => providerOfPage(url, auth, params.slug!, params.providerId!),
  intents: (intent) => ({
    "verify-domain": intent({
      schema: verifyDomainSchema,
      rateLimit: "/sso/verify-domain",
      extra: (formData) => ({ key: `verify-domain-${String(formData.get("domain"))}` }),
      async run(ctx) {
        const { domain } = ctx.value;
        await asPageRefusal(() =>
          verifyDomain(ctx.auth, { providerId: ctx.page.provider.providerId, domain }, ctx.meta),
        );
        return done(ctx, ssoT(ctx.args.context)("domains.verifiedToast", { domain }));
      },
    }),
    "update-oidc": intent({
      schema: updateOidcSchema,
      rateLimit: "/sso/update-provider",
      fields: EDIT_FIELDS,
      extra: () => ({ key: "update-oidc" }),
      async run(ctx) {
        const { issuer, domain, clientId, clientSecret, ...rest } = ctx.value;
        const { discoveryEndpoint, authorizationEndpoint, tokenEndpoint, jwksEndpoint, userInfoEndpoint } = rest;
        const settings = {
          clientId,
          clientSecret,
          discoveryEndpoint,
          authorizationEndpoint,
          tokenEndpoint,
          jwksEndpoint,
          userInfoEndpoint,
        };
        const current = ctx.page.provider.oidcConfig ?? {};
        await asPageRefusal(() =>
          updateProvider(
            ctx.auth,
            {
              providerId: ctx.page.provider.providerId,
              issuer,
              domain,
              oidcConfig: changes(settings, current as Record<string, string | undefined>),
            },
            ctx.meta,
          ),
        );
        return done(ctx, ssoT(ctx.args.context)("edit.saved"));
      },
    }),
    "update-saml": intent({
      schema: updateSamlSchema,
      rateLimit: "/sso/update-provider",
      fields: EDIT_FIELDS,
      extra: () => ({ key: "update-saml" }),
      async run(ctx) {
        const { domain, metadata, metadataUrl, entityId, entryPoint, cert } = ctx.value;
        const current = ctx.page.provider.samlConfig;
        const changed = changes(
          { entityId, entryPoint },
          { entityId: current?.idpEntityId, entryPoint: current?.entryPoint },
        );
        const given = metadata || metadataUrl || cert || changed.entityId || changed.entryPoint;
        await asPageRefusal(() =>
          updateProvider(
            ctx.auth,
            {
              providerId: ctx.page.provider.providerId,
              domain,
              samlConfig: given
                ? {
                    entryPoint: changed.entryPoint,
                    cert,
                    idpMetadata: { metadata, metadataUrl, entityID: changed.entityId },
                  }
                : undefined,
            },
            ctx.meta,
          ),
        );
        return done(ctx, ssoT(ctx.args.context)("edit.saved"));
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function Connection({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("sso");
  const localize = useLocalize();
  const { key } = useLocation();
  const { slug, providerId, type, setup } = loaderData;
  const here = localize(ssoPath(slug, providerId));
  return (
    <div className="flex flex-col gap-8">
      <BackLink to={localize(ssoPath(slug))}>{t("connection.back")}</BackLink>
      <Section
        id="connection"
        title={<span className="break-all">{providerId}</span>}
        description={t("connection.description", { kind: t(`kind.${type}`) })}
      >
        <Summary data={loaderData} />
      </Section>

      <Section id="setup" title={t("setup.title")} description={t(`setup.description.${type}`)}>
        <div className="flex max-w-2xl flex-col gap-4" data-testid="setup-values">
          {type === "oidc" ? (
            <CopyField id="setup-redirect-uri" label={t("setup.redirectUri")} value={setup.redirectUri} />
          ) : (
            <>
              <CopyField id="setup-acs-url" label={t("setup.acsUrl")} value={setup.acsUrl} />
              <CopyField id="setup-sp-entity-id" label={t("setup.spEntityId")} value={setup.spEntityId} />
              <CopyField id="setup-metadata-url" label={t("setup.metadataUrl")} value={setup.metadataUrl} />
            </>
          )}
        </div>
      </Section>

      <Section id="domains" title={t("domains.title")} description={t("domains.description")}>
        <ul className="flex flex-col gap-6" data-testid="domain-list">
          {loaderData.domains.map((entry) => (
            <DomainRow key={entry.domain} entry={entry} />
          ))}
        </ul>
      </Section>

      {type === "oidc" ? (
        <EditOidc key={`edit-${key}`} data={loaderData} />
      ) : (
        <EditSaml key={`edit-${key}`} data={loaderData} />
      )}

      <Section id="scim" title={t("scim.title")} description={t("scim.description")}>
        <AppLink
          to={localize(ssoPath(slug, providerId, "scim"))}
          className={buttonClass("secondary", "whitespace-nowrap")}
        >
          {t("scim.open")}
        </AppLink>
      </Section>

      <Section id="danger" tone="danger" title={t("remove.title")} description={t("remove.description")}>
        <AppLink to={`${here}/remove`} preventScrollReset className={buttonClass("dangerOutline", "whitespace-nowrap")}>
          {t("remove.open")}
        </AppLink>
      </Section>
      {/* The removal's confirmation is a child route, drawn as a dialog over the connection. */}
      <Outlet />
    </div>
  );
}

/** The connection's settings as stored: the client secret only as stored, never its value. */
function Summary({ data }: { data: LoaderData }) {
  const { t } = useTranslation("sso");
  const rows: [string, string][] = data.oidc
    ? [
        [t("summary.issuer"), data.issuer],
        [
          t("summary.clientId"),
          t("summary.lastFour", { value: data.oidc.clientIdLastFour.replace(/^\*+/, "") || "••••" }),
        ],
        [t("summary.clientSecret"), t("summary.secretStored")],
        [t("summary.authorizationEndpoint"), data.oidc.authorizationEndpoint],
        [t("summary.tokenEndpoint"), data.oidc.tokenEndpoint],
        [t("summary.jwksEndpoint"), data.oidc.jwksEndpoint],
      ]
    : [
        [t("summary.entityId"), data.saml?.idpEntityId ?? ""],
        [t("summary.entryPoint"), data.saml?.entryPoint ?? ""],
        ...(data.saml?.certificates ?? []).map((cert, index): [string, string] => [
          t("summary.certificate", { n: index + 1 }),
          cert ? t("summary.certificateValue", { fingerprint: cert.fingerprintSha256, until: cert.notAfter }) : "—",
        ]),
      ];
  return (
    <dl
      className="grid max-w-3xl gap-x-6 gap-y-3 text-sm sm:grid-cols-[minmax(0,12rem)_minmax(0,1fr)]"
      data-testid="connection-summary"
    >
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="text-slate-600 dark:text-slate-400">{label}</dt>
          <dd className="min-w-0 font-mono text-xs break-all sm:text-sm">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function DomainRow({ entry }: { entry: LoaderData["domains"][number] }) {
  const { t } = useTranslation("sso");
  const locale = useLocale();
  const { fetcher, errors, pending } = useRowForm(`verify-domain-${entry.domain}`);
  const id = entry.domain.replace(/[^a-z0-9]+/g, "-");
  return (
    <li
      data-domain={entry.domain}
      className="flex flex-col gap-3 border-b border-slate-200 pb-6 last:border-0 last:pb-0 dark:border-slate-800"
    >
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className="font-medium break-all">{entry.domain}</span>
        <SsoDomainState verified={entry.verified} />
        {entry.verifiedAt ? (
          <span className="text-xs text-slate-600 dark:text-slate-400">
            {t("domains.verifiedOn")} <LocalTime iso={entry.verifiedAt} locale={locale} />
          </span>
        ) : null}
      </p>
      {!entry.verified && entry.record ? (
        <>
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("domains.instructions")}</p>
          <div className="grid gap-3 md:grid-cols-2">
            <CopyField id={`record-name-${id}`} label={t("domains.recordName")} value={entry.record.name} />
            <CopyField id={`record-value-${id}`} label={t("domains.recordValue")} value={entry.record.value} />
          </div>
          <fetcher.Form method="post" className="flex flex-col gap-2">
            <input type="hidden" name="intent" value="verify-domain" />
            <input type="hidden" name="domain" value={entry.domain} />
            <FormErrors errors={errors} />
            <div>
              <SubmitButton
                pending={pending}
                pendingLabel={t("domains.pending")}
                aria-label={t("domains.verifyLabel", { domain: entry.domain })}
                className="whitespace-nowrap"
              >
                {t("domains.verify")}
              </SubmitButton>
            </div>
          </fetcher.Form>
        </>
      ) : null}
    </li>
  );
}

function EditOidc({ data }: { data: LoaderData }) {
  const { t } = useTranslation("sso");
  const oidc = data.oidc!;
  const { fetcher, form, fields, pending } = useSectionForm(
    "update-oidc",
    () => import("~/lib/sso-forms").then((m) => m.updateOidcSchema),
    {
      issuer: data.issuer,
      domain: data.domain,
      discoveryEndpoint: oidc.discoveryEndpoint,
      authorizationEndpoint: oidc.authorizationEndpoint,
      tokenEndpoint: oidc.tokenEndpoint,
      jwksEndpoint: oidc.jwksEndpoint,
      userInfoEndpoint: oidc.userInfoEndpoint,
    },
  );
  const advanced = [
    fields.discoveryEndpoint,
    fields.authorizationEndpoint,
    fields.tokenEndpoint,
    fields.jwksEndpoint,
    fields.userInfoEndpoint,
  ];
  return (
    <Section id="edit" title={t("edit.title")} description={t("edit.description")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
        <input type="hidden" name="intent" value="update-oidc" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field
          field={fields.domain}
          type="text"
          label={t("form.domain")}
          hint={t("edit.domainHint")}
          inputProps={{ autoComplete: "off", spellCheck: false }}
        />
        <Field
          field={fields.issuer}
          type="url"
          label={t("form.issuer")}
          inputProps={{ autoComplete: "off", spellCheck: false }}
        />
        <Field
          field={fields.clientId}
          type="text"
          label={t("form.clientId")}
          hint={t("edit.clientIdHint", { value: oidc.clientIdLastFour.replace(/^\*+/, "") || "••••" })}
          inputProps={{ autoComplete: "off", spellCheck: false }}
        />
        <Field
          field={fields.clientSecret}
          type="password"
          label={t("form.clientSecret")}
          hint={t("edit.clientSecretHint")}
          inputProps={{ autoComplete: "new-password", spellCheck: false, placeholder: "••••••••" }}
        />
        <Fold testId="edit-advanced" label={t("form.advanced")} open={advanced.some((field) => field.errors?.length)}>
          <EndpointFields fields={fields} />
        </Fold>
        <div>
          <SubmitButton pending={pending} pendingLabel={t("edit.pending")} className="whitespace-nowrap">
            {t("edit.submit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
    </Section>
  );
}

function EditSaml({ data }: { data: LoaderData }) {
  const { t } = useTranslation("sso");
  const { fetcher, form, fields, pending } = useSectionForm(
    "update-saml",
    () => import("~/lib/sso-forms").then((m) => m.updateSamlSchema),
    {
      domain: data.domain,
      entityId: data.saml?.idpEntityId,
      entryPoint: data.saml?.entryPoint,
    },
  );
  return (
    <Section id="edit" title={t("edit.title")} description={t("edit.description")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-xl flex-col gap-4">
        <input type="hidden" name="intent" value="update-saml" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field
          field={fields.domain}
          type="text"
          label={t("form.domain")}
          hint={t("edit.domainHint")}
          inputProps={{ autoComplete: "off", spellCheck: false }}
        />
        <SamlSourceFields fields={fields} keep />
        <div>
          <SubmitButton pending={pending} pendingLabel={t("edit.pending")} className="whitespace-nowrap">
            {t("edit.submit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
    </Section>
  );
}
