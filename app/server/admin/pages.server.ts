/**
 * What the admin console's pages need around the admin verbs: the guard that keeps
 * non-admins out, the page strings, the users table for a URL's view, the user a dialog's URL
 * names (for its loader and its action), and the admin session a page acts as.
 */
import type { MiddlewareFunction, RouterContextProvider } from "react-router";
import { navigation } from "~/config/navigation";
import type { UsersView } from "~/lib/admin-forms";
import { requireAuthSession, localizedRedirect, requireUser } from "~/server/auth/guards.server";
import type { AuthSession, SessionUser } from "~/server/auth/session.server";
import { prisma, type Prisma } from "~/server/db.server";
import { getInstance, getLocale, notFound } from "~/server/i18n.server";
import type { PageContext } from "~/server/page-action.server";
import { pageUrl } from "~/server/page-url.server";
import { isAdmin } from "./permissions.server";
import { getUser, listUsers } from "./users.server";

const DAY = 86_400_000;

export function adminT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(getLocale(context), "admin");
}

/**
 * The signed-in administrator; a guest goes to sign in, anyone else to /403. The admin
 * layout's middleware runs it, and so does every admin loader, action and resource route,
 * so none depends on where it sits in the route tree.
 */
export function requireAdminUser(context: Readonly<RouterContextProvider>): SessionUser {
  const user = requireUser(context);
  if (!isAdmin(user)) throw localizedRedirect(pageUrl(context), navigation.forbidden);
  return user;
}

export const requireAdminMiddleware: MiddlewareFunction<Response> = ({ context }) => {
  requireAdminUser(context);
};

/** The signed-in admin (the admin layout's middleware has made sure there is one). */
export const adminOf = (context: Readonly<RouterContextProvider>): AuthSession => requireAuthSession(context);

/**
 * One page of the users table: the API's search, order and paging, plus the table's filters,
 * and how many passkeys each user on the page has.
 */
export async function usersPage(admin: AuthSession, view: UsersView) {
  const createdAt = {
    ...(view.from ? { gte: new Date(view.from) } : {}),
    ...(view.to ? { lt: new Date(new Date(view.to).getTime() + DAY) } : {}), // the whole last day
  };
  const extra: Prisma.UserWhereInput = {
    ...(view.role !== "all" ? { role: view.role } : {}),
    ...(view.status !== "all" ? { banned: view.status === "banned" } : {}),
    ...(view.from || view.to ? { createdAt } : {}),
  };
  const { users, total } = await listUsers(
    admin,
    {
      searchValue: view.q || undefined,
      searchField: view.field,
      searchOperator: "contains",
      sortBy: view.sort,
      sortDirection: view.dir,
      limit: view.size,
      offset: (view.page - 1) * view.size,
      filterField: "email",
      filterOperator: "eq",
    },
    extra,
  );
  // Counted for this page's users only, on the userId index. A `_count` in the users query
  // groups the whole passkey table for every page: measured over 100,000 users with 80,000
  // passkeys, it added 30 to 50 ms a page on SQLite; this query adds about 5.
  const counts = await prisma.passkey.groupBy({
    by: ["userId"],
    where: { userId: { in: users.map((user) => user.id) } },
    _count: { _all: true },
  });
  const passkeys = new Map(counts.map((row) => [row.userId, row._count._all]));
  return { users: users.map((user) => ({ ...user, passkeys: passkeys.get(user.id) ?? 0 })), total };
}

/** The user a dialog's `:userId` names; a 404 page when there is none. */
export async function userOfPage(admin: AuthSession, url: URL, userId: string) {
  try {
    return await getUser(admin, userId);
  } catch {
    notFound(url.pathname);
  }
}

/** An admin page action's `prepare`: the guard, before the form is read. */
export const requireAdminAction = async ({ args }: PageContext<"required">) => requireAdminUser(args.context);

/** A user dialog's action `prepare`: the admin guard, then the user its URL names. */
export function userOfDialog({ args, auth }: PageContext<"required">) {
  requireAdminUser(args.context);
  return userOfPage(auth, args.url, args.params.userId!);
}
