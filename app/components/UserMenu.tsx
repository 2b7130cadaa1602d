import { useTranslation } from "~/lib/translations";
import { Form } from "react-router";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { useLocale, useLocalize } from "~/lib/use-root-data";

export interface MenuUser {
  name: string;
  email: string;
  image: string | null;
  isAdmin: boolean;
  /** The paid plan the badge names ("pro", "team"), or null. */
  plan: string | null;
}

export function UserMenu({ user }: { user: MenuUser }) {
  const { t } = useTranslation();
  const localize = useLocalize();
  const locale = useLocale();
  const initial = (user.name || user.email).slice(0, 1).toUpperCase();
  const item = "menu-item";
  return (
    <details className="relative" data-menu>
      <summary
        aria-label={t("nav.account")}
        className="flex cursor-pointer items-center gap-2 rounded-full p-0.5 hover:ring-2 hover:ring-primary-500/40"
      >
        {user.image ? (
          <img src={user.image} alt="" className="size-8 rounded-full object-cover" />
        ) : (
          <span className="flex size-8 items-center justify-center rounded-full bg-primary-700 text-sm font-semibold text-white">
            {initial}
          </span>
        )}
      </summary>
      <div className="absolute right-0 z-40 mt-2 w-56 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900">
        <div className="border-b border-slate-200 px-3 py-2 dark:border-slate-700">
          <p className="flex items-center gap-2 text-sm font-medium">
            <span className="truncate">{user.name}</span>
            {user.plan ? (
              <span
                data-testid="plan-badge"
                className="shrink-0 rounded-full bg-primary-700 px-2 py-0.5 text-[10px] font-semibold tracking-wide text-white uppercase"
              >
                {t(`plans.${user.plan}`, { defaultValue: user.plan })}
              </span>
            ) : null}
          </p>
          <p className="truncate text-xs text-slate-600 dark:text-slate-400">{user.email}</p>
        </div>
        <AppLink to={localize("/dashboard")} className={item}>
          <Icon name="dashboard" /> {t("nav.dashboard")}
        </AppLink>
        <AppLink to={localize("/profile")} className={item}>
          <Icon name="user" /> {t("nav.profile")}
        </AppLink>
        <AppLink to={localize("/billing")} className={item}>
          <Icon name="credit-card" /> {t("nav.billing")}
        </AppLink>
        {user.isAdmin ? (
          <AppLink to={localize("/admin/dashboard")} className={item}>
            <Icon name="shield" /> {t("nav.admin")}
          </AppLink>
        ) : null}
        <Form method="post" action="/signout" reloadDocument>
          <input type="hidden" name="locale" value={locale} />
          <button type="submit" className={item}>
            <Icon name="log-out" /> {t("nav.signOut")}
          </button>
        </Form>
      </div>
    </details>
  );
}
