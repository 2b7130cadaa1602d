/**
 * What the admin console's user pages need around the admin verbs: the page strings, the
 * users table for a URL's view, the user a dialog's URL names, and the admin session a page
 * acts as.
 */
import type { RouterContextProvider } from "react-router";
import type { UsersView } from "~/lib/admin-forms";
import { getAuthSession } from "~/server/auth/guards.server";
import type { AuthSession } from "~/server/auth/session.server";
import type { Prisma } from "~/server/db.server";
import { pageLocale } from "~/server/forms.server";
import { getInstance, notFound } from "~/server/i18n.server";
import { getUser, listUsers } from "./users.server";

const DAY = 86_400_000;

export function adminT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(pageLocale(context), "admin");
}

/** The signed-in admin (the admin layout's middleware has made sure there is one). */
export const adminOf = (context: Readonly<RouterContextProvider>): AuthSession => getAuthSession(context)!;

/** One page of the users table: the API's search, order and paging, plus the table's filters. */
export function usersPage(view: UsersView) {
  const createdAt = {
    ...(view.from ? { gte: new Date(view.from) } : {}),
    ...(view.to ? { lt: new Date(new Date(view.to).getTime() + DAY) } : {}), // the whole last day
  };
  const extra: Prisma.UserWhereInput = {
    ...(view.role !== "all" ? { role: view.role } : {}),
    ...(view.status !== "all" ? { banned: view.status === "banned" } : {}),
    ...(view.from || view.to ? { createdAt } : {}),
  };
  return listUsers(
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
}

/** The user a dialog's `:userId` names; a 404 page when there is none. */
export async function userOfPage(request: Request, userId: string) {
  try {
    return await getUser(userId);
  } catch {
    notFound(new URL(request.url).pathname);
  }
}
