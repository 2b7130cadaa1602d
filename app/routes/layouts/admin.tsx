import { Outlet } from "react-router";
import type { Route } from "./+types/admin";
import { AppShell } from "~/components/AppShell";
import { requireAdminMiddleware } from "~/server/admin/pages.server";
import { requireAuthSession } from "~/server/auth/guards.server";
import { shellOf } from "~/server/organization/pages.server";

/**
 * The admin console: the same shell as every signed-in page (its side navigation lists the
 * console's pages for administrators); only administrators get past the middleware.
 */
export const middleware: Route.MiddlewareFunction[] = [requireAdminMiddleware];

export async function loader({ context }: Route.LoaderArgs) {
  return shellOf(requireAuthSession(context));
}

export default function AdminLayout({ loaderData }: Route.ComponentProps) {
  return (
    <AppShell shell={loaderData}>
      <Outlet />
    </AppShell>
  );
}
