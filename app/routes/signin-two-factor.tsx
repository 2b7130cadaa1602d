import { getFormProps } from "@conform-to/react";
import { navigation } from "~/config/navigation";
import { Form, useActionData, useLocation } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/signin-two-factor";
import { AppLink } from "~/components/AppLink";
import { AuthCard, linkClass } from "~/components/ui/AuthCard";
import { SubmitButton } from "~/components/ui/Button";
import { Checkbox } from "~/components/ui/Checkbox";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { withRedirect } from "~/lib/safe-redirect";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { secondStepSchema } from "~/lib/two-factor-forms";
import { SECOND_STEP_METHODS, type SecondStepMethod } from "~/lib/form-limits";
import { useLocalize } from "~/lib/use-root-data";
import { redirectParam } from "~/server/auth/guards.server";
import { pendingMethods, pendingSignIn, sendOtp, verifySecondStep } from "~/server/auth/two-factor.server";
import { isAppError } from "~/server/errors.server";
import { authT, cookieHeaders } from "~/server/forms.server";
import { getLocale } from "~/server/i18n.server";
import { pageAction, type IntentOf, type PageContext } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * The sign-in's second step: a password (or a provider) was right, and the pending sign-in's
 * signed cookie says who is signing in. An authenticator code, a backup code or a code sent
 * by email finishes it; `?method=` picks the form, so every choice works without JavaScript.
 */
export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** Back to the sign-in page (keeping where to go afterwards), saying why. */
function restart(url: URL, context: Route.LoaderArgs["context"], code: string) {
  const signIn = withRedirect(localizePath("/signin", getLocale(context)), url.searchParams.get("redirect"));
  return redirectWithToast(signIn, { type: "error", title: authT(context)(`errors.${code}`) });
}

function methodOf(url: URL, methods: SecondStepMethod[]): SecondStepMethod {
  const asked = url.searchParams.get("method");
  const method = SECOND_STEP_METHODS.find((m) => m === asked);
  return method && methods.includes(method) ? method : methods[0]!;
}

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const pending = await pendingSignIn(request);
  if (!pending) throw await restart(url, context, "INVALID_TWO_FACTOR_COOKIE");
  const methods: SecondStepMethod[] = [...(await pendingMethods(pending)), "backup-code"];
  return { meta: pageMeta(context, "twoFactor"), methods, method: methodOf(url, methods) };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** Who is signing in: the pending sign-in's cookie says; without one, back to the password. */
async function prepare({ args: { request, url, context } }: PageContext<"optional">) {
  const pending = await pendingSignIn(request);
  if (!pending) throw await restart(url, context, "INVALID_TWO_FACTOR_COOKIE");
  return { kind: "pending" as const, pending };
}
type Caller = Awaited<ReturnType<typeof prepare>>;

/**
 * A code of one kind finishes the sign-in; it counts under the /api/auth call that verifies it.
 * (Its return type gives the intent the page's types.)
 */
function verifyIntent(intent: IntentOf<"optional", Caller>, method: SecondStepMethod) {
  return intent({
    schema: secondStepSchema,
    rateLimit: `/two-factor/verify-${method}`,
    fields: { INVALID_CODE: "code", INVALID_BACKUP_CODE: "code" },
    async run({ args: { url, context }, meta, locale, page: caller, value: { code, trustDevice } }) {
      try {
        const { user, setCookies } = await verifySecondStep(caller, method, { code, trustDevice }, meta);
        const target = redirectParam(url) ?? localizePath(navigation.signedInRedirect, locale);
        return redirectWithToast(
          target,
          { type: "success", title: authT(context)("signIn.signedIn", { name: user.name }) },
          { headers: cookieHeaders(setCookies) },
        );
      } catch (error) {
        // This sign-in is over (spent or expired): it starts again from the password.
        if (isAppError(error) && error.code === "INVALID_TWO_FACTOR_COOKIE") return restart(url, context, error.code);
        if (isAppError(error) && error.code === "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE" && method !== "otp") {
          return restart(url, context, error.code);
        }
        throw error;
      }
    },
  });
}

export const action = pageAction({
  auth: "optional",
  prepare,
  intents: (intent) => ({
    totp: verifyIntent(intent, "totp"),
    "backup-code": verifyIntent(intent, "backup-code"),
    otp: verifyIntent(intent, "otp"),
    "send-otp": intent({
      // Nothing to read: the pending sign-in says whom to send the code to.
      schema: z.object({}),
      rateLimit: "/two-factor/send-otp",
      refusal: "toast",
      async run({ args: { url, context }, meta, page: caller }) {
        await sendOtp(caller, meta);
        const otp = new URL(url);
        otp.searchParams.set("method", "otp");
        const t = authT(context);
        return redirectWithToast(otp.pathname + otp.search, {
          type: "success",
          title: t("twoFactor.signIn.codeSent"),
          description: t("twoFactor.signIn.codeSentBody"),
        });
      },
    }),
  }),
});

export default function SignInTwoFactor({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  const location = useLocation();
  const { method, methods } = loaderData;
  const params = new URLSearchParams(location.search);
  const linkTo = (other: SecondStepMethod) => {
    const next = new URLSearchParams(params);
    next.set("method", other);
    return `${location.pathname}?${next}`;
  };
  const restartLink = withRedirect(localize("/signin"), params.get("redirect"));

  return (
    <AuthCard
      title={loaderData.meta.title}
      description={t(`twoFactor.signIn.${method}.description`)}
      footer={
        <AppLink to={restartLink} className={linkClass}>
          {t("twoFactor.signIn.restart")}
        </AppLink>
      }
    >
      <div className="flex flex-col gap-5">
        {method === "otp" ? <SendOtpForm /> : null}
        <CodeForm key={method} method={method} />
        <nav aria-label={t("twoFactor.signIn.otherMethods")} className="flex flex-col gap-2 text-sm">
          {methods
            .filter((other) => other !== method)
            .map((other) => (
              <AppLink key={other} to={linkTo(other)} className={linkClass} data-testid={`two-factor-use-${other}`}>
                {t(`twoFactor.signIn.${other}.use`)}
              </AppLink>
            ))}
        </nav>
      </div>
    </AuthCard>
  );
}

function CodeForm({ method }: { method: SecondStepMethod }) {
  const { t } = useTranslation("auth");
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent(method);
  const [form, fields] = usePageForm(() => import("~/lib/two-factor-forms").then((m) => m.secondStepSchema), {
    lastResult: actionData?.result,
    defaultValue: { intent: method, trustDevice: false },
  });
  const numeric = method !== "backup-code";
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <input type="hidden" name="intent" value={method} />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field
        field={fields.code}
        type="text"
        label={t(`twoFactor.signIn.${method}.label`)}
        inputProps={{
          autoComplete: "one-time-code",
          autoFocus: true,
          inputMode: numeric ? "numeric" : "text",
          ...(numeric && { pattern: "[0-9]{6}", maxLength: 6 }),
          spellCheck: false,
        }}
      />
      <Checkbox field={fields.trustDevice} label={t("twoFactor.signIn.trustDevice")} />
      <SubmitButton pending={pending} pendingLabel={t("twoFactor.signIn.pending")} className="w-full">
        {t("twoFactor.signIn.submit")}
      </SubmitButton>
    </Form>
  );
}

function SendOtpForm() {
  const { t } = useTranslation("auth");
  const pending = usePendingIntent("send-otp");
  return (
    <Form method="post">
      <input type="hidden" name="intent" value="send-otp" />
      <SubmitButton
        variant="secondary"
        pending={pending}
        pendingLabel={t("twoFactor.signIn.sending")}
        className="w-full"
      >
        {t("twoFactor.signIn.sendCode")}
      </SubmitButton>
    </Form>
  );
}
