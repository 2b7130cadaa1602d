import { navigation } from "~/config/navigation";
import { Form, Outlet, useLocation } from "react-router";
import type { Route } from "./+types/users";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { StackedLabel, StackedTable, stackedCell, stackedRow } from "~/components/reports/StackedTable";
import { buttonClass } from "~/components/ui/Button";
import { Pagination } from "~/components/ui/Pagination";
import { useRowActions } from "~/components/ui/row-actions";
import { localizePath } from "~/i18n/config";
import { setRoleSchema, userRowSchema, viewOf, type UsersView } from "~/lib/admin-forms";
import { PAGE_SIZES } from "~/lib/form-limits";
import { billingDate, numberFormat } from "~/lib/intl";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { adminOf, adminT, requireAdminAction, usersPage } from "~/server/admin/pages.server";
import { impersonateUser, revokeUserSessions, setRole, unbanUser } from "~/server/admin/users.server";
import { cookieHeaders } from "~/server/forms.server";
import { pageAction, type PageActionArgs } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["admin", "auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const view = viewOf(url.searchParams);
  const admin = adminOf(context);
  const { users, total } = await usersPage(admin, view);
  return { meta: pageMeta(context, "adminUsers"), view, users, total, me: admin.user.id };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** Back to the same view with a toast saying what was done. */
function done({ args }: { args: PageActionArgs }, intent: "set-role" | "unban" | "revoke-sessions") {
  const { pathname, search } = args.url;
  return redirectWithToast(pathname + search, { type: "success", title: adminT(args.context)(`users.done.${intent}`) });
}

/** The row buttons: back to the same view with a toast (impersonation: to the home page as the user). */
export const action = pageAction({
  auth: "required",
  prepare: requireAdminAction,
  intents: (intent) => ({
    "set-role": intent({
      schema: setRoleSchema,
      rateLimit: "/admin/set-role",
      refusal: "toast",
      async run(ctx) {
        await setRole(ctx.auth, ctx.value, ctx.meta);
        return done(ctx, "set-role");
      },
    }),
    unban: intent({
      schema: userRowSchema,
      rateLimit: "/admin/unban-user",
      refusal: "toast",
      async run(ctx) {
        await unbanUser(ctx.auth, ctx.value.userId, ctx.meta);
        return done(ctx, "unban");
      },
    }),
    impersonate: intent({
      schema: userRowSchema,
      rateLimit: "/admin/impersonate-user",
      refusal: "toast",
      async run({ args, auth, meta, locale, value }) {
        const { user, setCookies } = await impersonateUser(auth, value.userId, args.request, meta);
        return redirectWithToast(
          // The admin now acts as the user: where the user's own sign-in would land.
          localizePath(navigation.signedInRedirect, locale),
          { type: "success", title: adminT(args.context)("users.impersonating", { name: user.name }) },
          { headers: cookieHeaders(setCookies) },
        );
      },
    }),
    "revoke-sessions": intent({
      schema: userRowSchema,
      rateLimit: "/admin/revoke-user-sessions",
      refusal: "toast",
      async run(ctx) {
        await revokeUserSessions(ctx.auth, ctx.value.userId, ctx.meta);
        return done(ctx, "revoke-sessions");
      },
    }),
  }),
});

/** The view's query with some parameters changed (a new sort, page or size). */
function withView(view: UsersView, changes: Partial<Record<keyof UsersView, string | number>>) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...view, ...changes })) {
    if (value !== undefined && value !== "") params.set(key, String(value));
  }
  return `?${params}`;
}

export default function Users({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const locale = useLocale();
  const localize = useLocalize();
  const { search } = useLocation();
  const rowActions = useRowActions();
  const { view, users, total, me } = loaderData;
  const pages = Math.max(1, Math.ceil(total / view.size));
  const number = numberFormat(locale);
  // aria-sort belongs to the column header (a link may not carry it); the link re-sorts.
  const sortHeader = (column: UsersView["sort"]) => {
    const active = view.sort === column;
    const dir = active && view.dir === "asc" ? "desc" : "asc";
    return (
      <th
        scope="col"
        className="px-4 py-3"
        aria-sort={active ? (view.dir === "asc" ? "ascending" : "descending") : undefined}
      >
        <AppLink
          to={withView(view, { sort: column, dir, page: 1 })}
          preventScrollReset
          className="inline-flex items-center gap-1 hover:underline"
        >
          {t(`users.columns.${column}`)}
          {active ? <span aria-hidden="true">{view.dir === "asc" ? "↑" : "↓"}</span> : null}
        </AppLink>
      </th>
    );
  };
  const field =
    "rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-700 dark:bg-slate-900";
  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">{t("users.title")}</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="users-total">
            {t("users.total", { formatted: number.format(total) })}
          </p>
        </div>
        <AppLink to={localize(`/admin/users/new${search}`)} className={buttonClass()} preventScrollReset>
          {t("users.create")}
        </AppLink>
      </div>

      <Form method="get" className="flex flex-wrap items-end gap-3" role="search">
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("users.filters.search")}
          <input type="search" name="q" defaultValue={view.q} className={field} />
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("users.filters.field")}
          <select name="field" defaultValue={view.field} className={field}>
            <option value="email">{t("users.columns.email")}</option>
            <option value="name">{t("users.columns.name")}</option>
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("users.columns.role")}
          <select name="role" defaultValue={view.role} className={field}>
            {(["all", "user", "admin"] as const).map((value) => (
              <option key={value} value={value}>
                {t(`users.roles.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("users.columns.status")}
          <select name="status" defaultValue={view.status} className={field}>
            {(["all", "active", "banned"] as const).map((value) => (
              <option key={value} value={value}>
                {t(`users.status.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("users.filters.from")}
          <input type="date" name="from" defaultValue={view.from} className={field} />
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("users.filters.to")}
          <input type="date" name="to" defaultValue={view.to} className={field} />
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium">
          {t("users.filters.size")}
          <select name="size" defaultValue={String(view.size)} className={field}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
        {/* The column headers sort on a wide screen; a phone has no header row, so these do
            (hidden from md up, but sent with the form either way). */}
        <label className="flex flex-col gap-1 text-xs font-medium md:hidden">
          {t("users.filters.sort")}
          <select name="sort" defaultValue={view.sort} className={field}>
            {(["name", "email", "role", "createdAt"] as const).map((value) => (
              <option key={value} value={value}>
                {t(`users.columns.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-xs font-medium md:hidden">
          {t("users.filters.dir")}
          <select name="dir" defaultValue={view.dir} className={field}>
            {(["asc", "desc"] as const).map((value) => (
              <option key={value} value={value}>
                {t(`users.filters.dirs.${value}`)}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className={buttonClass("secondary")}>
          {t("users.filters.apply")}
        </button>
      </Form>

      {/* Cards on a phone, a table from md up; a row's menu may hang below the list. */}
      <StackedTable
        onClick={rowActions.onClick}
        onSubmit={rowActions.onSubmit}
        data-testid="user-list"
        empty={users.length ? null : t("users.empty")}
        head={
          <>
            {sortHeader("name")}
            {sortHeader("email")}
            {sortHeader("role")}
            <th scope="col" className="px-4 py-3">
              {t("users.columns.status")}
            </th>
            <th scope="col" className="px-4 py-3">
              {t("users.columns.security")}
            </th>
            {sortHeader("createdAt")}
            <th scope="col" className="px-4 py-3">
              <span className="sr-only">{t("users.columns.actions")}</span>
            </th>
          </>
        }
      >
        {users.map((user) => (
          <tr
            key={user.id}
            data-user={user.email}
            data-banned={user.banned || undefined}
            data-two-factor={user.twoFactorEnabled || undefined}
            data-passkeys={user.passkeys}
            className={stackedRow}
          >
            <td className={`${cell} order-1 font-medium max-md:[overflow-wrap:anywhere]`}>{user.name}</td>
            <td className={`${cell} order-3 max-md:[overflow-wrap:anywhere]`}>{user.email}</td>
            <td className={`${cell} order-4`}>
              <StackedLabel>{t("users.columns.role")}</StackedLabel>
              {t(`users.roles.${user.role === "admin" ? "admin" : "user"}`)}
            </td>
            <td className={`${cell} order-5 text-right md:text-left`}>
              {user.banned ? (
                <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-red-800 dark:bg-red-950 dark:text-red-200">
                  {user.banExpires
                    ? t("users.bannedUntil", { date: billingDate(locale, new Date(user.banExpires)) })
                    : t("users.status.banned")}
                </span>
              ) : (
                t("users.status.active")
              )}
            </td>
            <td className={`${cell} order-6`}>
              <SecondFactors twoFactor={user.twoFactorEnabled} passkeys={user.passkeys} />
            </td>
            <td
              className={`${cell} order-7 text-right whitespace-nowrap text-slate-600 md:text-left md:text-inherit dark:text-slate-400 md:dark:text-inherit`}
            >
              <StackedLabel>{t("users.columns.createdAt")}</StackedLabel>
              {billingDate(locale, new Date(user.createdAt))}
            </td>
            <td className={`${cell} order-2 row-span-2 text-right md:py-2`}>
              <RowActions user={user} self={user.id === me} search={search} action={rowActions.action} />
            </td>
          </tr>
        ))}
      </StackedTable>

      <div className="flex flex-wrap items-center justify-between gap-4 text-sm">
        <span>{t("users.page", { page: view.page, pages })}</span>
        <Pagination page={view.page} pages={pages} href={(page) => withView(view, { page })} />
      </div>
      <Outlet />
    </div>
  );
}

const cell = `${stackedCell} md:px-4 md:py-3`;

/** Two-factor and passkeys at a glance: short marks, with the full words for screen readers. */
function SecondFactors({ twoFactor, passkeys }: { twoFactor: boolean; passkeys: number }) {
  const { t } = useTranslation("admin");
  const badge =
    "inline-flex items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200";
  if (!twoFactor && !passkeys) {
    return (
      <span className="text-slate-400">
        <span aria-hidden="true">—</span>
        <span className="sr-only">{t("users.security.none")}</span>
      </span>
    );
  }
  return (
    <span className="flex flex-wrap gap-1">
      {twoFactor ? (
        <span className={badge} title={t("users.security.twoFactor")}>
          <Icon name="shield" className="size-3.5" />
          <span aria-hidden="true">2FA</span>
          <span className="sr-only">{t("users.security.twoFactor")}</span>
        </span>
      ) : null}
      {passkeys ? <span className={badge}>{t("users.security.passkeys", { count: passkeys })}</span> : null}
    </span>
  );
}

function RowActions({
  user,
  self,
  search,
  action,
}: {
  user: { id: string; name: string; role: string; banned: boolean; twoFactorEnabled: boolean };
  self: boolean;
  search: string;
  action: string;
}) {
  const { t } = useTranslation("admin");
  const localize = useLocalize();
  const post = (intent: string, label: string) => (
    <button type="submit" name="intent" value={intent}>
      {label}
    </button>
  );
  // Opened and submitted in the app by the table (useRowActions in Users).
  const dialog = (path: string, label: string) => (
    <a href={localize(`/admin/users/${user.id}/${path}${search}`)} data-dialog>
      {label}
    </a>
  );
  return (
    <details className="relative inline-block text-left" data-menu>
      <summary
        className={buttonClass("ghost", "cursor-pointer")}
        aria-label={t("users.actionsFor", { name: user.name })}
      >
        ⋯
      </summary>
      {/* One form for the row's buttons: the role is read by set-role only. It and its items
          are styled by one class (app.css), not each item on its own: 60 KB less per 100 rows. */}
      <form method="post" action={action} data-row-form className="row-menu">
        <input type="hidden" name="userId" value={user.id} />
        <input type="hidden" name="role" value={user.role === "admin" ? "user" : "admin"} />
        {post("set-role", user.role === "admin" ? t("users.actions.makeUser") : t("users.actions.makeAdmin"))}
        {self ? null : user.banned ? post("unban", t("users.actions.unban")) : dialog("ban", t("users.actions.ban"))}
        {self || user.role === "admin" ? null : post("impersonate", t("users.actions.impersonate"))}
        {post("revoke-sessions", t("users.actions.revokeSessions"))}
        {dialog("password", t("users.actions.setPassword"))}
        {user.twoFactorEnabled ? dialog("two-factor", t("users.actions.resetTwoFactor")) : null}
        {self ? null : dialog("delete", t("users.actions.delete"))}
      </form>
    </details>
  );
}
