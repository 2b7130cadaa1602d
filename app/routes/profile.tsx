import { getFormProps, type FieldMetadata } from "@conform-to/react";
import { useTranslation } from "~/lib/translations";
import { useFetcher, useLocation } from "react-router";
import type { Route } from "./+types/profile";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { Icon, type IconName } from "~/components/Icon";
import { PasskeysSection } from "~/components/PasskeysSection";
import { SocialButtons } from "~/components/SocialButtons";
import { SubmitButton, buttonClass } from "~/components/ui/Button";
import { Checkbox } from "~/components/ui/Checkbox";
import { useSectionForm } from "~/components/ui/section-form";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { localizePath } from "~/i18n/config";
import {
  changeEmailSchema,
  changePasswordSchema,
  deleteAccountSchema,
  PASSWORD_MAX,
  PASSWORD_MIN,
  revokeOtherSessionsSchema,
  revokeSessionSchema,
  sendVerificationSchema,
  setPasswordSchema,
  unlinkAccountSchema,
  updateProfileSchema,
} from "~/lib/auth-forms";
import { seo } from "~/lib/seo";
import { parseUserAgent } from "~/lib/user-agent";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import {
  changeEmail,
  changePassword,
  deleteUser,
  hasPassword,
  listUserSessions,
  revokeOtherUserSessions,
  revokeUserSession,
  setPassword,
  updateUser,
} from "~/server/auth/account-management.server";
import { sendVerificationEmail } from "~/server/auth/accounts.server";
import { getAuthSession, requireUser } from "~/server/auth/guards.server";
import { listPasskeys } from "~/server/auth/passkeys.server";
import { clearCookieCacheCookie, sessionDataCookieName } from "~/server/auth/session.server";
import { listAccounts, enabledProviders, unlinkAccount } from "~/server/auth/social/social.server";
import { twoFactorState } from "~/server/auth/two-factor.server";
import { isSocialProviderId, SOCIAL_PROVIDERS } from "~/server/auth/social/providers/index.server";
import { authT, cookieHeaders, errorTitle, type FieldErrors } from "~/server/forms.server";
import { getLocale } from "~/server/i18n.server";
import { pageAction, socialIntent, type PageContext } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  requireUser(context); // the menu layout's middleware has already made sure
  const auth = getAuthSession(context)!;
  const { user } = auth;
  const linkOutcome = socialLinkToast(url, context);
  if (linkOutcome) return linkOutcome;
  const [sessions, withPassword, accounts, twoFactor, passkeys] = await Promise.all([
    listUserSessions(auth),
    hasPassword(user.id),
    listAccounts(user.id),
    twoFactorState(user.id),
    listPasskeys(user.id),
  ]);
  return {
    meta: pageMeta(context, "profile"),
    user: {
      name: user.name,
      email: user.email,
      image: user.image,
      emailVerified: user.emailVerified,
    },
    hasPassword: withPassword,
    twoFactor: { enabled: user.twoFactorEnabled, backupCodes: twoFactor.backupCodes },
    sessions: sessions.map((session) => ({
      // The stored hash: an opaque id that can only revoke the caller's own session.
      token: session.token,
      current: session.id === auth.session.id,
      userAgent: session.userAgent,
      ipAddress: session.ipAddress,
      lastActive: session.updatedAt.toISOString(),
    })),
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
  const here = localizePath("/profile", getLocale(context));
  if (!error) return redirectWithToast(here, { type: "success", title: t("profile.accounts.linked") });
  const description = t(`social.errors.${error}`, { defaultValue: t("social.errors.provider", { code: error }) });
  return redirectWithToast(here, { type: "error", title: t("social.linkErrorTitle"), description });
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** The fields the services' refusals go next to, in the sections that have them. */
const FIELDS: FieldErrors = {
  INVALID_PASSWORD: "currentPassword",
  PASSWORD_TOO_SHORT: "newPassword",
  PASSWORD_TOO_LONG: "newPassword",
  INVALID_EMAIL: "newEmail",
  EMAIL_IS_THE_SAME: "newEmail",
  USER_ALREADY_EXISTS: "newEmail",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "newEmail",
  COULD_NOT_UPDATE_EMAIL: "newEmail",
};

/** A section's form: a refusal answers it under its key (useSectionForm shows it on that form). */
const section = <K extends string>(key: K) => ({ extra: () => ({ key }), fields: FIELDS });

/**
 * A success redirects back here (replacing the history entry) with a toast, so every loader
 * runs again and the page, the navbar and the session list show the new state.
 */
function done(here: string, title: string, description?: string, setCookies: readonly string[] = []) {
  const headers = cookieHeaders(setCookies, new Headers({ "X-Remix-Replace": "true" }));
  // The cookie cache holds the old user for up to a minute: drop it unless replaced.
  if (!setCookies.some((cookie) => cookie.startsWith(`${sessionDataCookieName()}=`))) {
    headers.append("Set-Cookie", clearCookieCacheCookie());
  }
  return redirectWithToast(here, { type: "success", title, description }, { headers });
}

async function prepare({ args, auth, locale }: PageContext<"required">) {
  return {
    t: authT(args.context),
    here: localizePath("/profile", locale),
    // Deleting the account asks for the password only of a user who has one.
    withPassword: await hasPassword(auth.user.id),
  };
}

/**
 * One form per section, told apart by `intent`; each counts under the /api/auth call it stands
 * for.
 */
export const action = pageAction({
  auth: "required",
  prepare,
  intents: (intent) => ({
    "send-verification": intent({
      schema: sendVerificationSchema,
      rateLimit: "/send-verification-email",
      extra: () => ({ key: "send-verification" as const }),
      async run({ auth, meta, locale, page: { t, here } }) {
        const { email } = auth.user;
        await sendVerificationEmail({ email, callbackURL: localizePath("/verify-email", locale) }, meta, auth);
        return done(here, t("profile.email.resent"), t("profile.email.resentBody", { email }));
      },
    }),
    "link-social": socialIntent({
      link: true,
      paths: ({ locale }) => {
        const here = localizePath("/profile", locale);
        return { callbackPath: `${here}?linked=1`, errorPath: here };
      },
    }),
    "update-profile": intent({
      ...section("update-profile"),
      schema: updateProfileSchema,
      rateLimit: "/update-user",
      async run({ auth, meta, value: { name, image }, page: { t, here } }) {
        const result = await updateUser(auth, { name, image: image ?? null }, meta);
        return done(here, t("profile.profile.saved"), undefined, result.setCookies);
      },
    }),
    "change-email": intent({
      ...section("change-email"),
      schema: changeEmailSchema,
      rateLimit: "/change-email",
      async run({ auth, meta, locale, value: { newEmail }, page: { t, here } }) {
        const result = await changeEmail(auth, { newEmail, callbackURL: localizePath("/verify-email", locale) }, meta);
        // A verified address must confirm the change; an unverified one changes at once, and the
        // new address gets a verification. Said the same way whether or not the address is taken.
        if (result.wasVerified) {
          return done(
            here,
            t("profile.email.confirmSent"),
            t("profile.email.confirmSentBody", { email: auth.user.email }),
          );
        }
        const checkNew = t("profile.email.checkNewBody", { email: newEmail });
        return done(here, t("profile.email.checkNew"), checkNew, result.setCookies);
      },
    }),
    "change-password": intent({
      ...section("change-password"),
      schema: changePasswordSchema,
      rateLimit: "/change-password",
      async run({ auth, meta, value: { currentPassword, newPassword, revokeOtherSessions }, page: { t, here } }) {
        const result = await changePassword(auth, { currentPassword, newPassword, revokeOtherSessions }, meta);
        const others = revokeOtherSessions ? t("profile.password.changedOthers") : undefined;
        return done(here, t("profile.password.changed"), others, result.setCookies);
      },
    }),
    "set-password": intent({
      ...section("set-password"),
      schema: setPasswordSchema,
      rateLimit: "/set-password",
      async run({ auth, meta, value: { newPassword }, page: { t, here } }) {
        await setPassword(auth, { newPassword }, meta);
        return done(here, t("profile.password.set"));
      },
    }),
    "revoke-session": intent({
      ...section("revoke-session"),
      schema: revokeSessionSchema,
      rateLimit: "/revoke-session",
      async run({ auth, meta, value: { token }, page: { t, here } }) {
        const result = await revokeUserSession(auth, { token }, meta);
        return done(here, t("profile.sessions.revoked"), undefined, result.setCookies);
      },
    }),
    "revoke-other-sessions": intent({
      ...section("revoke-other-sessions"),
      schema: revokeOtherSessionsSchema,
      rateLimit: "/revoke-other-sessions",
      async run({ auth, meta, page: { t, here } }) {
        await revokeOtherUserSessions(auth, meta);
        return done(here, t("profile.sessions.revokedOthers"));
      },
    }),
    "unlink-account": intent({
      ...section("unlink-account"),
      schema: unlinkAccountSchema,
      rateLimit: "/unlink-account",
      async run({ auth, meta, value: { accountId }, page: { t, here } }) {
        try {
          await unlinkAccount(auth, { accountId }, meta);
        } catch (error) {
          // Said in a toast: the accounts list has no field to put it next to.
          return redirectWithToast(here, { type: "error", title: errorTitle(t, error) });
        }
        return done(here, t("profile.accounts.unlinked"));
      },
    }),
    "delete-account": intent({
      ...section("delete-account"),
      fields: { ...FIELDS, INVALID_PASSWORD: "password" },
      schema: ({ page }) => deleteAccountSchema(page.withPassword),
      rateLimit: "/delete-user",
      async run({ auth, meta, locale, value: { password }, page: { t, here } }) {
        const result = await deleteUser(auth, { password, callbackURL: localizePath("/", locale) }, meta);
        if (!result.deleted) {
          return done(
            here,
            t("profile.danger.emailSent"),
            t("profile.danger.emailSentBody", { email: auth.user.email }),
          );
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

type ActionIntent = (typeof action.intents)[number];

// ---------------------------------------------------------------------------------------

type LoaderData = Route.ComponentProps["loaderData"];

export default function Profile({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const location = useLocation();
  // After a success the page is reloaded under a new location key: the forms start afresh
  // from the new data (cleared password fields, the new name).
  const key = location.key;
  return (
    <div className="flex max-w-3xl flex-col gap-8">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{t("meta.profile.title")}</h1>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t("meta.profile.description")}</p>
      </div>
      <ProfileSection key={`profile-${key}`} user={loaderData.user} />
      <EmailSection key={`email-${key}`} user={loaderData.user} />
      {loaderData.hasPassword ? (
        <ChangePasswordSection key={`password-${key}`} />
      ) : (
        <SetPasswordSection key={`set-password-${key}`} />
      )}
      <TwoFactorSection {...loaderData.twoFactor} />
      <PasskeysSection passkeys={loaderData.passkeys} />
      <AccountsSection accounts={loaderData.accounts} providers={loaderData.providers} />
      <SessionsSection sessions={loaderData.sessions} />
      <DataSection />
      <DangerSection key={`danger-${key}`} hasPassword={loaderData.hasPassword} />
    </div>
  );
}

function IntentInput({ intent }: { intent: ActionIntent }) {
  return <input type="hidden" name="intent" value={intent} />;
}

function ProfileSection({ user }: { user: LoaderData["user"] }) {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending } = useSectionForm("update-profile", updateProfileSchema, {
    name: user.name,
    image: user.image ?? "",
  });
  const initial = (user.name || user.email).slice(0, 1).toUpperCase();
  return (
    <Section id="profile" title={t("profile.profile.title")} description={t("profile.profile.description")}>
      <div className="flex flex-col gap-6 sm:flex-row">
        {user.image ? (
          <img src={user.image} alt="" className="size-16 shrink-0 rounded-full object-cover" />
        ) : (
          <span className="flex size-16 shrink-0 items-center justify-center rounded-full bg-primary-700 text-2xl font-semibold text-white">
            {initial}
          </span>
        )}
        <fetcher.Form method="post" {...getFormProps(form)} className="flex flex-1 flex-col gap-4">
          <IntentInput intent="update-profile" />
          <FormErrors id={form.errorId} errors={form.errors} />
          <Field
            field={fields.name}
            type="text"
            label={t("profile.profile.name")}
            inputProps={{ autoComplete: "name" }}
          />
          <Field
            field={fields.image}
            type="url"
            label={t("profile.profile.image")}
            hint={t("profile.profile.imageHint")}
            inputProps={{ autoComplete: "photo", placeholder: "https://" }}
          />
          <div>
            <SubmitButton pending={pending} pendingLabel={t("profile.profile.pending")}>
              {t("profile.profile.submit")}
            </SubmitButton>
          </div>
        </fetcher.Form>
      </div>
    </Section>
  );
}

function EmailSection({ user }: { user: LoaderData["user"] }) {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending } = useSectionForm("change-email", changeEmailSchema);
  const resend = useSectionForm("send-verification", sendVerificationSchema);
  return (
    <Section id="email" title={t("profile.email.title")} description={t("profile.email.description")}>
      <div className="flex flex-col gap-5">
        <div className="flex flex-wrap items-center gap-3 text-sm">
          <span className="text-slate-600 dark:text-slate-400">{t("profile.email.current")}</span>
          <span className="font-medium" data-testid="profile-email">
            {user.email}
          </span>
          <span
            data-testid="email-status"
            className={
              user.emailVerified
                ? "rounded-full bg-primary-100 px-2 py-0.5 text-xs font-medium text-primary-800 dark:bg-primary-900/50 dark:text-primary-200"
                : "rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-800 dark:bg-amber-900/40 dark:text-amber-200"
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
        <fetcher.Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
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
  const { fetcher, form, fields, pending } = useSectionForm("change-password", changePasswordSchema);
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
  const { fetcher, form, fields, pending } = useSectionForm("set-password", setPasswordSchema);
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

function SessionsSection({ sessions }: { sessions: LoaderData["sessions"] }) {
  const { t } = useTranslation("auth");
  const locale = useLocale();
  const others = sessions.filter((session) => !session.current);
  const revokeOthers = useFetcher<typeof action>({ key: "revoke-other-sessions" });
  return (
    <Section id="sessions" title={t("profile.sessions.title")} description={t("profile.sessions.description")}>
      <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="session-list">
        {sessions.map((session) => {
          const device = deviceName(session.userAgent, t);
          return (
            <li
              key={session.token}
              data-current={session.current || undefined}
              className="flex items-center gap-4 py-3"
            >
              <Icon name="monitor" className="size-5 shrink-0 text-slate-400" />
              <dl className="grid min-w-0 flex-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,1.3fr)]">
                <div className="min-w-0">
                  <dt className="text-xs text-slate-600 dark:text-slate-400">{t("profile.sessions.device")}</dt>
                  <dd className="flex min-w-0 items-center gap-2 font-medium" data-testid="session-device">
                    <span className="truncate">{device}</span>
                    {session.current ? (
                      <span className="shrink-0 rounded-full bg-primary-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-primary-800 dark:bg-primary-900/50 dark:text-primary-200">
                        {t("profile.sessions.current")}
                      </span>
                    ) : null}
                  </dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-xs text-slate-600 dark:text-slate-400">{t("profile.sessions.ip")}</dt>
                  <dd className="truncate text-slate-700 dark:text-slate-300">
                    {session.ipAddress || t("profile.sessions.unknownIp")}
                  </dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-xs text-slate-600 dark:text-slate-400">{t("profile.sessions.lastActive")}</dt>
                  <dd className="text-slate-700 dark:text-slate-300">
                    <LocalTime iso={session.lastActive} locale={locale} />
                  </dd>
                </div>
              </dl>
              {session.current ? null : <RevokeSessionButton token={session.token} device={device} />}
            </li>
          );
        })}
      </ul>
      <div className="mt-4">
        {others.length ? (
          <revokeOthers.Form method="post">
            <IntentInput intent="revoke-other-sessions" />
            <SubmitButton
              variant="secondary"
              pending={revokeOthers.state !== "idle"}
              pendingLabel={t("profile.sessions.revokeOthersPending")}
            >
              {t("profile.sessions.revokeOthers")}
            </SubmitButton>
          </revokeOthers.Form>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("profile.sessions.onlyThis")}</p>
        )}
      </div>
    </Section>
  );
}

/** A plain link to a resource route: the browser downloads the file, with or without JavaScript. */
function DataSection() {
  const { t } = useTranslation("auth");
  return (
    <Section id="data" title={t("profile.data.title")} description={t("profile.data.description")}>
      <a href={useLocalize()("/profile/data.json")} download className={buttonClass("secondary")}>
        {t("profile.data.download")}
      </a>
    </Section>
  );
}

function RevokeSessionButton({ token, device }: { token: string; device: string }) {
  const { t } = useTranslation("auth");
  const fetcher = useFetcher<typeof action>({ key: `revoke-session-${token}` });
  return (
    <fetcher.Form method="post">
      <IntentInput intent="revoke-session" />
      <input type="hidden" name="token" value={token} />
      <SubmitButton
        variant="ghost"
        className="px-3 py-1.5"
        aria-label={t("profile.sessions.revokeLabel", { device })}
        pending={fetcher.state !== "idle"}
      >
        {t("profile.sessions.revoke")}
      </SubmitButton>
    </fetcher.Form>
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
    <fetcher.Form method="post">
      <IntentInput intent="unlink-account" />
      <input type="hidden" name="accountId" value={accountId} />
      <SubmitButton
        variant="ghost"
        aria-label={t("profile.accounts.unlinkLabel", { provider: label })}
        pendingLabel={t("profile.accounts.unlinkPending")}
        pending={fetcher.state !== "idle"}
      >
        {t("profile.accounts.unlink")}
      </SubmitButton>
    </fetcher.Form>
  );
}

function deviceName(userAgent: string | null, t: (key: string, options?: Record<string, string>) => string) {
  const { browser, os } = parseUserAgent(userAgent);
  if (browser && os) return t("device.browserOnOs", { browser, os });
  return browser ?? os ?? t("device.unknown");
}

function TwoFactorSection({ enabled, backupCodes }: LoaderData["twoFactor"]) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  return (
    <Section id="two-factor" title={t("twoFactor.section.title")} description={t("twoFactor.section.description")}>
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm" data-testid="two-factor-state">
          <span
            className={`mr-2 rounded-full px-2 py-0.5 text-xs font-medium ${enabled ? "bg-primary-100 text-primary-800 dark:bg-primary-900/50 dark:text-primary-300" : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-300"}`}
          >
            {enabled ? t("twoFactor.section.on") : t("twoFactor.section.off")}
          </span>
          {enabled ? t("twoFactor.section.codesLeft", { count: backupCodes }) : null}
        </p>
        <AppLink
          to={localize("/profile/two-factor")}
          className={buttonClass("secondary")}
          data-testid="two-factor-manage"
        >
          {enabled ? t("twoFactor.section.manage") : t("twoFactor.section.setUp")}
        </AppLink>
      </div>
    </Section>
  );
}

function DangerSection({ hasPassword }: { hasPassword: boolean }) {
  const { t } = useTranslation("auth");
  const { fetcher, form, fields, pending, rejected } = useSectionForm(
    "delete-account",
    deleteAccountSchema(hasPassword),
  );
  return (
    <Section id="danger" tone="danger" title={t("profile.danger.title")} description={t("profile.danger.description")}>
      {/* The confirmation step: a disclosure, so it needs no JavaScript either. */}
      {/* Opened again when the server refused the last try (it re-renders the page without JS). */}
      <details className="group" open={rejected || undefined}>
        <summary className={buttonClass("dangerOutline", "cursor-pointer list-none")}>
          {t("profile.danger.open")}
        </summary>
        <fetcher.Form
          method="post"
          {...getFormProps(form)}
          className="mt-4 flex max-w-md flex-col gap-4 rounded-lg border border-red-200 bg-red-50/60 p-4 dark:border-red-900/70 dark:bg-red-950/30"
        >
          <IntentInput intent="delete-account" />
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
