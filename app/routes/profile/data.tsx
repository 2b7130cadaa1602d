import { getFormProps } from "@conform-to/react";
import { useLocation } from "react-router";
import type { Route } from "./+types/data";
import { SettingsPage } from "~/components/settings/SettingsPage";
import { SubmitButton, buttonClass } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { deleteAccountSchema } from "~/lib/auth-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { deleteUser, hasPassword } from "~/server/auth/account-management.server";
import { requireUser } from "~/server/auth/guards.server";
import { sectionForm, SETTINGS_FIELDS, settingsDone, settingsHere } from "~/server/auth/settings.server";
import { authT, cookieHeaders } from "~/server/forms.server";
import { pageAction, type PageContext } from "~/server/page-action.server";
import { settingsMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ context }: Route.LoaderArgs) {
  const user = requireUser(context);
  return { meta: settingsMeta(context, "data"), hasPassword: await hasPassword(user.id) };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

async function prepare({ args, auth, locale }: PageContext<"required">) {
  return {
    t: authT(args.context),
    here: settingsHere("data", locale),
    // Deleting the account asks for the password only of a user who has one.
    withPassword: await hasPassword(auth.user.id),
  };
}

export const action = pageAction({
  auth: "required",
  prepare,
  intents: (intent) => ({
    "delete-account": intent({
      ...sectionForm("delete-account"),
      fields: { ...SETTINGS_FIELDS, INVALID_PASSWORD: "password" },
      schema: ({ page }) => deleteAccountSchema(page.withPassword),
      rateLimit: "/delete-user",
      async run({ auth, meta, locale, value: { password }, page: { t, here } }) {
        const result = await deleteUser(auth, { password, callbackURL: localizePath("/", locale) }, meta);
        if (!result.deleted) {
          const body = t("profile.danger.emailSentBody", { email: auth.user.email });
          return settingsDone(here, t("profile.danger.emailSent"), body);
        }
        return redirectWithToast(
          localizePath("/", locale),
          { type: "success", title: t("profile.danger.deleted"), description: t("profile.danger.deletedBody") },
          { headers: cookieHeaders(result.setCookies) },
        );
      },
    }),
  }),
});

export default function DataSettings({ loaderData }: Route.ComponentProps) {
  const { key } = useLocation();
  return (
    <SettingsPage>
      <DownloadSection />
      <DangerSection key={key} hasPassword={loaderData.hasPassword} />
    </SettingsPage>
  );
}

/** A plain link to a resource route: the browser downloads the file, with or without JavaScript. */
function DownloadSection() {
  const { t } = useTranslation("auth");
  return (
    <Section id="data" title={t("profile.data.title")} description={t("profile.data.description")}>
      <a href={useLocalize()("/profile/data.json")} download className={buttonClass("secondary", "whitespace-nowrap")}>
        {t("profile.data.download")}
      </a>
    </Section>
  );
}

function DangerSection({ hasPassword }: { hasPassword: boolean }) {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending, rejected } = useSectionForm("delete-account", () =>
    import("~/lib/auth-forms").then((m) => m.deleteAccountSchema(hasPassword)),
  );
  return (
    <Section id="danger" tone="danger" title={t("profile.danger.title")} description={t("profile.danger.description")}>
      {/* The confirmation step: a disclosure, so it needs no JavaScript either. */}
      {/* Opened again when the server refused the last try (it re-renders the page without JS). */}
      <details className="group" open={rejected || undefined}>
        <summary className={buttonClass("dangerOutline", "cursor-pointer list-none whitespace-nowrap")}>
          {t("profile.danger.open")}
        </summary>
        <fetcher.Form
          method="post"
          {...getFormProps(form)}
          className="mt-4 flex max-w-md flex-col gap-4 rounded-lg border border-red-200 bg-red-50/60 p-4 dark:border-red-900/70 dark:bg-red-950/30"
        >
          <input type="hidden" name="intent" value={"delete-account" satisfies (typeof action.intents)[number]} />
          <p className="text-sm font-semibold">{t("profile.danger.confirmTitle")}</p>
          <FormErrors id={form.errorId} errors={form.errors} />
          {hasPassword ? (
            <Field
              field={fields.password}
              type="password"
              label={t("profile.danger.confirmPassword")}
              inputProps={{ autoComplete: "current-password" }}
            />
          ) : (
            <p className="text-sm text-slate-700 dark:text-slate-300">{t("profile.danger.confirmEmail")}</p>
          )}
          <div>
            <SubmitButton
              variant="danger"
              pending={pending}
              pendingLabel={hasPassword ? t("profile.danger.pending") : t("profile.danger.emailPending")}
            >
              {hasPassword ? t("profile.danger.submit") : t("profile.danger.emailSubmit")}
            </SubmitButton>
          </div>
        </fetcher.Form>
      </details>
    </Section>
  );
}
