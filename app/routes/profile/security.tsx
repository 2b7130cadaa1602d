import { getFormProps, type FieldMetadata } from "@conform-to/react";
import { useFetcher, useLocation } from "react-router";
import type { Route } from "./+types/security";
import { AppLink } from "~/components/AppLink";
import { Icon, type IconName } from "~/components/Icon";
import { PasskeysSection } from "~/components/PasskeysSection";
import { SocialButtons } from "~/components/SocialButtons";
import { SettingsPage } from "~/components/settings/SettingsPage";
import { SubmitButton, buttonClass } from "~/components/ui/Button";
import { Checkbox } from "~/components/ui/Checkbox";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { Section } from "~/components/ui/Section";
import { useSectionForm } from "~/components/ui/section-form";
import { changePasswordSchema, setPasswordSchema, unlinkAccountSchema } from "~/lib/auth-forms";
import { PASSWORD_MAX, PASSWORD_MIN } from "~/lib/form-limits";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { changePassword, hasPassword, setPassword } from "~/server/auth/account-management.server";
import { requireUser } from "~/server/auth/guards.server";
import { listPasskeys } from "~/server/auth/passkeys.server";
import { sectionForm, settingsDone, settingsHere } from "~/server/auth/settings.server";
import { enabledProviders, listAccounts, unlinkAccount } from "~/server/auth/social/social.server";
import { isSocialProviderId, SOCIAL_PROVIDERS } from "~/server/auth/social/providers/index.server";
import { twoFactorState } from "~/server/auth/two-factor.server";
import { authT, errorTitle } from "~/server/forms.server";
import { getLocale } from "~/server/i18n.server";
import { pageAction, socialIntent, type PageContext } from "~/server/page-action.server";
import { settingsMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** How the account is signed in to: its password, second step, passkeys and linked providers. */
export async function loader({ url, context }: Route.LoaderArgs) {
  const user = requireUser(context);
  const linkOutcome = socialLinkToast(url, context);
  if (linkOutcome) return linkOutcome;
  const [withPassword, accounts, twoFactor, passkeys] = await Promise.all([
    hasPassword(user.id),
    listAccounts(user.id),
    twoFactorState(user.id),
    listPasskeys(user.id),
  ]);
  return {
    meta: settingsMeta(context, "security"),
    hasPassword: withPassword,
    twoFactor: { enabled: user.twoFactorEnabled, backupCodes: twoFactor.backupCodes },
    accounts: accounts.map((account) => ({
      id: account.id,
      providerId: account.providerId,
      name: isSocialProviderId(account.providerId) ? SOCIAL_PROVIDERS[account.providerId].name : null,
    })),
    providers: enabledProviders(),
    passkeys: passkeys.map(({ id, name, createdAt, deviceType }) => ({
      id,
      name,
      createdAt: createdAt.toISOString(),
      deviceType,
    })),
  };
}

/**
 * A link flow comes back here with `?linked=1` or the callback's `?error=`: said once in a
 * toast, in the page's language, under the clean URL.
 */
function socialLinkToast(url: URL, context: Route.LoaderArgs["context"]) {
  const query = url.searchParams;
  const error = query.get("error");
  if (!query.has("linked") && !error) return null;
  const t = authT(context);
  const here = settingsHere("security", getLocale(context));
  if (!error) return redirectWithToast(here, { type: "success", title: t("profile.accounts.linked") });
  const description = t(`social.errors.${error}`, { defaultValue: t("social.errors.provider", { code: error }) });
  return redirectWithToast(here, { type: "error", title: t("social.linkErrorTitle"), description });
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

async function prepare({ args, locale }: PageContext<"required">) {
  return { t: authT(args.context), here: settingsHere("security", locale) };
}

/** The password forms (change, or set for an account without one), and linking providers. */
export const action = pageAction({
  auth: "required",
  prepare,
  intents: (intent) => ({
    "change-password": intent({
      ...sectionForm("change-password"),
      schema: changePasswordSchema,
      rateLimit: "/change-password",
      async run({ auth, meta, value: { currentPassword, newPassword, revokeOtherSessions }, page: { t, here } }) {
        const result = await changePassword(auth, { currentPassword, newPassword, revokeOtherSessions }, meta);
        const others = revokeOtherSessions ? t("profile.password.changedOthers") : undefined;
        return settingsDone(here, t("profile.password.changed"), others, result.setCookies);
      },
    }),
    "set-password": intent({
      ...sectionForm("set-password"),
      schema: setPasswordSchema,
      rateLimit: "/set-password",
      async run({ auth, meta, value: { newPassword }, page: { t, here } }) {
        await setPassword(auth, { newPassword }, meta);
        return settingsDone(here, t("profile.password.set"));
      },
    }),
    "link-social": socialIntent({
      link: true,
      paths: ({ locale }) => {
        const here = settingsHere("security", locale);
        return { callbackPath: `${here}?linked=1`, errorPath: here };
      },
    }),
    "unlink-account": intent({
      ...sectionForm("unlink-account"),
      schema: unlinkAccountSchema,
      rateLimit: "/unlink-account",
      async run({ auth, meta, value: { accountId }, page: { t, here } }) {
        try {
          await unlinkAccount(auth, { accountId }, meta);
        } catch (error) {
          // Said in a toast: the accounts list has no field to put it next to.
          return redirectWithToast(here, { type: "error", title: errorTitle(t, error) });
        }
        return settingsDone(here, t("profile.accounts.unlinked"));
      },
    }),
  }),
});

type ActionIntent = (typeof action.intents)[number];
type LoaderData = Route.ComponentProps["loaderData"];

function IntentInput({ intent }: { intent: ActionIntent }) {
  return <input type="hidden" name="intent" value={intent} />;
}

export default function SecuritySettings({ loaderData }: Route.ComponentProps) {
  // After a success the page is reloaded under a new location key: the password fields
  // start empty again.
  const { key } = useLocation();
  return (
    <SettingsPage>
      {loaderData.hasPassword ? (
        <ChangePasswordSection key={`password-${key}`} />
      ) : (
        <SetPasswordSection key={`set-password-${key}`} />
      )}
      <TwoFactorSection {...loaderData.twoFactor} />
      <PasskeysSection passkeys={loaderData.passkeys} />
      <AccountsSection accounts={loaderData.accounts} providers={loaderData.providers} />
    </SettingsPage>
  );
}

type AnyField = FieldMetadata<string | undefined, Record<string, unknown>, string[]>;

function PasswordFields({ fields }: { fields: { newPassword: AnyField; confirmPassword: AnyField } }) {
  const { t } = useTranslation("auth");
  return (
    <>
      <Field
        field={fields.newPassword}
        type="password"
        label={t("form.newPassword")}
        hint={t("form.passwordHint", { min: PASSWORD_MIN, max: PASSWORD_MAX })}
        inputProps={{ autoComplete: "new-password", minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }}
      />
      <Field
        field={fields.confirmPassword}
        type="password"
        label={t("form.confirmPassword")}
        inputProps={{ autoComplete: "new-password" }}
      />
    </>
  );
}

function ChangePasswordSection() {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending } = useSectionForm("change-password", () =>
    import("~/lib/auth-forms").then((m) => m.changePasswordSchema),
  );
  return (
    <Section id="password" title={t("profile.password.title")} description={t("profile.password.description")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-md flex-col gap-4">
        <IntentInput intent="change-password" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <Field
          field={fields.currentPassword}
          type="password"
          label={t("form.currentPassword")}
          inputProps={{ autoComplete: "current-password" }}
        />
        <PasswordFields fields={fields} />
        <Checkbox field={fields.revokeOtherSessions} label={t("profile.password.revokeOthers")} />
        <div>
          <SubmitButton pending={pending} pendingLabel={t("profile.password.pending")}>
            {t("profile.password.submit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
    </Section>
  );
}

function SetPasswordSection() {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending } = useSectionForm("set-password", () =>
    import("~/lib/auth-forms").then((m) => m.setPasswordSchema),
  );
  return (
    <Section id="password" title={t("profile.password.setTitle")} description={t("profile.password.setDescription")}>
      <fetcher.Form method="post" {...getFormProps(form)} className="flex max-w-md flex-col gap-4">
        <IntentInput intent="set-password" />
        <FormErrors id={form.errorId} errors={form.errors} />
        <PasswordFields fields={fields} />
        <div>
          <SubmitButton pending={pending} pendingLabel={t("profile.password.pending")}>
            {t("profile.password.setSubmit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
    </Section>
  );
}

function TwoFactorSection({ enabled, backupCodes }: LoaderData["twoFactor"]) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  return (
    <Section id="two-factor" title={t("twoFactor.section.title")} description={t("twoFactor.section.description")}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm" data-testid="two-factor-state">
          <span
            className={`mr-2 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ${enabled ? "bg-primary-100 text-primary-800 dark:bg-primary-900/50 dark:text-primary-300" : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300"}`}
          >
            {enabled ? t("twoFactor.section.on") : t("twoFactor.section.off")}
          </span>
          {enabled ? t("twoFactor.section.codesLeft", { count: backupCodes }) : null}
        </p>
        <AppLink
          to={localize("/profile/two-factor")}
          className={buttonClass("secondary", "shrink-0 whitespace-nowrap")}
          data-testid="two-factor-manage"
        >
          {enabled ? t("twoFactor.section.manage") : t("twoFactor.section.setUp")}
        </AppLink>
      </div>
    </Section>
  );
}

function AccountsSection({
  accounts,
  providers,
}: {
  accounts: LoaderData["accounts"];
  providers: LoaderData["providers"];
}) {
  const { t } = useTranslation("auth");
  const linkable = providers.filter((provider) => !accounts.some((account) => account.providerId === provider.id));
  return (
    <Section id="accounts" title={t("profile.accounts.title")} description={t("profile.accounts.description")}>
      <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="account-list">
        {accounts.map((account) => {
          const password = account.providerId === "credential";
          const label = password ? t("profile.accounts.password") : (account.name ?? account.providerId);
          return (
            <li key={account.id} data-provider={account.providerId} className="flex items-center gap-4 py-3">
              <Icon
                name={password ? "lock" : (`brand-${account.providerId}` as IconName)}
                className="size-5 shrink-0 text-slate-600 dark:text-slate-400"
              />
              <span className="min-w-0 flex-1 truncate text-sm font-medium">{label}</span>
              {accounts.length > 1 ? <UnlinkButton accountId={account.id} label={label} /> : null}
            </li>
          );
        })}
      </ul>
      {accounts.length === 1 ? (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t("profile.accounts.onlyOne")}</p>
      ) : null}
      {linkable.length ? (
        <div className="mt-5 flex flex-col gap-3">
          <p className="text-sm font-medium">{t("profile.accounts.linkAnother")}</p>
          <SocialButtons providers={linkable} intent="link-social" />
        </div>
      ) : null}
    </Section>
  );
}

function UnlinkButton({ accountId, label }: { accountId: string; label: string }) {
  const { t } = useTranslation("auth");
  const fetcher = useFetcher<typeof action>({ key: `unlink-account-${accountId}` });
  return (
    <fetcher.Form method="post" className="shrink-0">
      <IntentInput intent="unlink-account" />
      <input type="hidden" name="accountId" value={accountId} />
      <SubmitButton
        variant="ghost"
        className="whitespace-nowrap"
        aria-label={t("profile.accounts.unlinkLabel", { provider: label })}
        pendingLabel={t("profile.accounts.unlinkPending")}
        pending={fetcher.state !== "idle"}
      >
        {t("profile.accounts.unlink")}
      </SubmitButton>
    </fetcher.Form>
  );
}
