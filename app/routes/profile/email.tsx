import { getFormProps } from "@conform-to/react";
import { useLocation } from "react-router";
import type { Route } from "./+types/email";
import { SettingsPage } from "~/components/settings/SettingsPage";
import { SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { changeEmailSchema, sendVerificationSchema } from "~/lib/auth-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { changeEmail } from "~/server/auth/account-management.server";
import { sendVerificationEmail } from "~/server/auth/accounts.server";
import { requireUser } from "~/server/auth/guards.server";
import { sectionForm, settingsDone, settingsHere } from "~/server/auth/settings.server";
import { authT } from "~/server/forms.server";
import { pageAction, type PageContext } from "~/server/page-action.server";
import { settingsMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export function loader({ context }: Route.LoaderArgs) {
  const user = requireUser(context);
  return {
    meta: settingsMeta(context, "email"),
    user: { email: user.email, emailVerified: user.emailVerified },
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

async function prepare({ args, locale }: PageContext<"required">) {
  return { t: authT(args.context), here: settingsHere("email", locale) };
}

export const action = pageAction({
  auth: "required",
  prepare,
  intents: (intent) => ({
    "change-email": intent({
      ...sectionForm("change-email"),
      schema: changeEmailSchema,
      rateLimit: "/change-email",
      async run({ auth, meta, locale, value: { newEmail }, page: { t, here } }) {
        const result = await changeEmail(auth, { newEmail, callbackURL: localizePath("/verify-email", locale) }, meta);
        // A verified address must confirm the change; an unverified one changes at once, and the
        // new address gets a verification. Said the same way whether or not the address is taken.
        if (result.wasVerified) {
          const body = t("profile.email.confirmSentBody", { email: auth.user.email });
          return settingsDone(here, t("profile.email.confirmSent"), body);
        }
        const checkNew = t("profile.email.checkNewBody", { email: newEmail });
        return settingsDone(here, t("profile.email.checkNew"), checkNew, result.setCookies);
      },
    }),
    "send-verification": intent({
      schema: sendVerificationSchema,
      rateLimit: "/send-verification-email",
      extra: () => ({ key: "send-verification" as const }),
      async run({ auth, meta, locale, page: { t, here } }) {
        const { email } = auth.user;
        await sendVerificationEmail({ email, callbackURL: localizePath("/verify-email", locale) }, meta, auth);
        return settingsDone(here, t("profile.email.resent"), t("profile.email.resentBody", { email }));
      },
    }),
  }),
});

type ActionIntent = (typeof action.intents)[number];

function IntentInput({ intent }: { intent: ActionIntent }) {
  return <input type="hidden" name="intent" value={intent} />;
}

export default function EmailSettings({ loaderData }: Route.ComponentProps) {
  // A new location key after each success: the form starts afresh (an empty new address).
  const { key } = useLocation();
  return (
    <SettingsPage>
      <EmailSection key={key} user={loaderData.user} />
    </SettingsPage>
  );
}

function EmailSection({ user }: { user: Route.ComponentProps["loaderData"]["user"] }) {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending } = useSectionForm("change-email", () =>
    import("~/lib/auth-forms").then((m) => m.changeEmailSchema),
  );
  const resend = useSectionForm("send-verification", () =>
    import("~/lib/auth-forms").then((m) => m.sendVerificationSchema),
  );
  return (
    <Section id="email" title={t("profile.email.title")} description={t("profile.email.description")}>
      <div className="flex flex-col gap-5">
        <div className="flex flex-wrap items-center gap-3 text-sm">
          <span className="text-slate-600 dark:text-slate-400">{t("profile.email.current")}</span>
          <span className="min-w-0 font-medium break-all" data-testid="profile-email">
            {user.email}
          </span>
          <span
            data-testid="email-status"
            className={
              user.emailVerified
                ? "rounded-full bg-primary-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-primary-800 dark:bg-primary-900/50 dark:text-primary-200"
                : "rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-800 dark:bg-amber-900/40 dark:text-amber-200"
            }
          >
            {user.emailVerified ? t("profile.email.verified") : t("profile.email.unverified")}
          </span>
        </div>
        {user.emailVerified ? null : (
          <resend.fetcher.Form method="post" {...getFormProps(resend.form)} className="flex flex-col gap-2">
            <IntentInput intent="send-verification" />
            <input type="hidden" name="email" value={user.email} />
            <FormErrors id={resend.form.errorId} errors={resend.form.errors} />
            <div>
              <SubmitButton
                variant="secondary"
                pending={resend.pending}
                pendingLabel={t("profile.email.resendPending")}
              >
                {t("profile.email.resend")}
              </SubmitButton>
            </div>
          </resend.fetcher.Form>
        )}
        <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-md flex-col gap-4">
          <IntentInput intent="change-email" />
          <FormErrors id={form.errorId} errors={form.errors} />
          <Field
            field={fields.newEmail}
            type="email"
            label={t("profile.email.newEmail")}
            inputProps={{ autoComplete: "email" }}
          />
          <div>
            <SubmitButton pending={pending} pendingLabel={t("profile.email.pending")}>
              {t("profile.email.submit")}
            </SubmitButton>
          </div>
        </fetcher.Form>
      </div>
    </Section>
  );
}
