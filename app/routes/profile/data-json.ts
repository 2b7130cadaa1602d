import type { Route } from "./+types/data-json";
import { downloadAccountData } from "~/server/account-data.server";
import { requireUser } from "~/server/auth/guards.server";
import { requestMeta } from "~/server/auth/session.server";

/**
 * "Download my data" (the profile page's link): everything stored about the signed-in user,
 * as one JSON file. A resource route answers on its own, so it checks the user itself.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const user = requireUser(context);
  const body = await downloadAccountData(user.id, requestMeta(request, context));
  const date = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="account-data-${date}.json"`,
      // Personal data: never kept by a shared cache or the browser's.
      "Cache-Control": "no-store",
    },
  });
}
