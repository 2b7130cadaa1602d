import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { linkClass, Notice } from "~/components/ui/AuthCard";
import { useLocalize } from "~/lib/use-root-data";
import { useTranslation } from "~/lib/translations";
import type { SocialProviderId } from "~/lib/social-providers";

export interface SocialProvider {
  id: SocialProviderId;
  name: string;
}

/**
 * One button per enabled provider. A plain form post (not a fetch): the answer is a redirect
 * to the provider's site, the same with or without JavaScript.
 */
export function SocialButtons({ providers, intent }: { providers: SocialProvider[]; intent: string }) {
  const { t } = useTranslation("auth");
  if (!providers.length) return null;
  return (
    <form method="post" className="grid grid-cols-1 gap-2 sm:grid-cols-2" data-testid="social-buttons">
      <input type="hidden" name="intent" value={intent} />
      {providers.map((provider) => (
        <button
          key={provider.id}
          type="submit"
          name="provider"
          value={provider.id}
          aria-label={t("social.continueWith", { provider: provider.name })}
          className="flex items-center justify-center gap-2 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800 shadow-sm hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-primary-600 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100 dark:hover:bg-slate-800"
        >
          <Icon name={`brand-${provider.id}`} className="size-4 shrink-0" />
          <span className="truncate">{provider.name}</span>
        </button>
      ))}
    </form>
  );
}

/** Below the sign-in and sign-up forms: "or", then the providers' buttons (nothing without providers). */
export function SocialSignIn({ providers }: { providers: SocialProvider[] }) {
  const { t } = useTranslation("auth");
  if (!providers.length) return null;
  return (
    <>
      <div className="flex items-center gap-3 text-xs text-slate-600 dark:text-slate-400" role="separator">
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
        {t("social.or")}
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      </div>
      <SocialButtons providers={providers} intent="social" />
    </>
  );
}

/**
 * Why a social sign-in or link failed (the callback's `error=`), and the provider's own words if
 * any. When the address's organization requires single sign-on, the way there, filled in.
 */
export function SocialErrorNotice({
  code,
  description,
  email,
}: {
  code: string;
  description?: string | null;
  email?: string | null;
}) {
  const { t, i18n } = useTranslation("auth");
  const localize = useLocalize();
  const key = `social.errors.${code}`;
  const sso =
    code === "sso_required"
      ? `${localize("/signin/sso")}?${new URLSearchParams({ error: code, email: email ?? "" })}`
      : null;
  return (
    <Notice tone="error" title={t("social.errorTitle")} testId="social-error">
      {i18n.exists(`auth:${key}`) ? t(key) : t("social.errors.provider", { code })}
      {description ? <span className="mt-1 block italic">{description}</span> : null}
      {sso ? (
        <AppLink to={sso} className={`mt-2 block ${linkClass}`}>
          {t("sso.continue")}
        </AppLink>
      ) : null}
    </Notice>
  );
}
