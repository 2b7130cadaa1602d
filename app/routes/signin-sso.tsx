import { getFormProps } from "@conform-to/react";
import { Form, redirect, useActionData, useLocation } from "react-router";
import type { Route } from "./+types/signin-sso";
import { AppLink } from "~/components/AppLink";
import { AuthCard, linkClass, Notice } from "~/components/ui/AuthCard";
import { SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { navigation } from "~/config/navigation";
import { localizePath } from "~/i18n/config";
import { withRedirect } from "~/lib/safe-redirect";
import { ssoSignInSchema } from "~/lib/sso-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { redirectParam } from "~/server/auth/guards.server";
import { callbackError } from "~/server/auth/social/social.server";
import { authT, cookieHeaders } from "~/server/forms.server";
import { pageAction } from "~/server/page-action.server";
import { startSsoSignIn } from "~/server/sso/sign-in.server";

/**
 * "Continue with single sign-on": one field, a work email or the organization's slug, and a
 * plain form post whose answer is the redirect to the organization's identity provider (the
 * same with or without JavaScript). The provider's answer comes back here with `?error=` when
 * it fails, and so do sign-ins elsewhere that an organization requires SSO for
 * (`?error=sso_required&email=`), with the email filled in.
 */
export const handle = { i18n: ["auth"], pageCache: true };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export function loader({ request, url, context }: Route.LoaderArgs) {
  const t = authT(context);
  const failure = callbackError(request);
  return {
    meta: { title: t("sso.title"), description: t("sso.description") },
    email: url.searchParams.get("email") ?? failure?.email ?? "",
    failure,
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** An address names its domain's connection; a name with a dot, a domain; anything else, an organization's slug. */
function selectorOf(identifier: string) {
  if (identifier.includes("@")) return { email: identifier.toLowerCase() };
  if (identifier.includes(".")) return { domain: identifier.toLowerCase() };
  return { organizationSlug: identifier };
}

export const action = pageAction({
  auth: "optional",
  intents: (intent) => ({
    sso: intent({
      schema: ssoSignInSchema,
      rateLimit: "/sign-in/sso",
      fields: { NO_PROVIDER_FOUND: "identifier", INVALID_SSO_PROVIDER: "identifier" },
      async run({ args, value: { identifier }, locale }) {
        const next = redirectParam(args.url);
        const { url, setCookies } = await startSsoSignIn({
          ...selectorOf(identifier),
          callbackURL: next ?? localizePath(navigation.signedInRedirect, locale),
          // A failure comes back to this page, which explains it (and keeps where to go).
          errorCallbackURL: withRedirect(localizePath("/signin/sso", locale), next),
        });
        return redirect(url, { headers: cookieHeaders(setCookies) });
      },
    }),
  }),
});

export default function SignInSso({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  const location = useLocation();
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("sso");
  const { failure, email } = loaderData;
  const [form, fields] = usePageForm(() => import("~/lib/sso-forms").then((m) => m.ssoSignInSchema), {
    lastResult: actionData?.result,
    defaultValue: { identifier: email },
  });
  const redirectTo = new URLSearchParams(location.search).get("redirect");

  return (
    <AuthCard
      title={loaderData.meta.title}
      description={loaderData.meta.description}
      footer={
        <AppLink to={withRedirect(localize("/signin"), redirectTo)} className={linkClass}>
          {t("sso.otherWays")}
        </AppLink>
      }
    >
      <div className="flex flex-col gap-5">
        {failure?.code === "sso_required" ? (
          <Notice tone="info" title={t("sso.requiredTitle")} testId="sso-required">
            {t("sso.requiredBody", { email })}
          </Notice>
        ) : failure ? (
          <SsoErrorNotice code={failure.code} description={failure.description} />
        ) : null}
        <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
          <input type="hidden" name="intent" value="sso" />
          <FormErrors id={form.errorId} errors={form.errors} />
          <Field
            field={fields.identifier}
            type="text"
            label={t("sso.identifier")}
            hint={t("sso.identifierHelp")}
            inputProps={{
              autoComplete: "username",
              autoCapitalize: "none",
              spellCheck: false,
              inputMode: "email",
              autoFocus: true,
            }}
          />
          <SubmitButton pending={pending} pendingLabel={t("sso.pending")} className="w-full">
            {t("sso.submit")}
          </SubmitButton>
        </Form>
      </div>
    </AuthCard>
  );
}

/** Why the provider's answer did not sign the person in (the callback's `error=`), and its own words if any. */
function SsoErrorNotice({ code, description }: { code: string; description: string | null }) {
  const { t, i18n } = useTranslation("auth");
  const key = `sso.errors.${code}`;
  return (
    <Notice tone="error" title={t("sso.errorTitle")} testId="sso-error">
      {i18n.exists(`auth:${key}`) ? t(key) : t("sso.errors.provider", { code })}
      {description ? <span className="mt-1 block italic">{description}</span> : null}
    </Notice>
  );
}
