import { Outlet } from "react-router";
import type { Route } from "./+types/menu";
import { AppShell } from "~/components/AppShell";
import { requireAuthSession, requireUserMiddleware } from "~/server/auth/guards.server";
import { shellOf } from "~/server/organization/pages.server";

/** The signed-in area, inside the app shell (side navigation, organization switcher). */
export const middleware: Route.MiddlewareFunction[] = [requireUserMiddleware];

export async function loader({ context }: Route.LoaderArgs) {
  return shellOf(requireAuthSession(context));
}

export default function MenuLayout({ loaderData }: Route.ComponentProps) {
  return (
    <AppShell shell={loaderData}>
      <Outlet />
    </AppShell>
  );
}
