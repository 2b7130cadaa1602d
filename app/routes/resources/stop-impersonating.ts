import { redirect } from "react-router";
import type { Route } from "./+types/stop-impersonating";
import { isLocale, localizePath } from "~/i18n/config";
import { stopImpersonating } from "~/server/admin/users.server";
import { getAuthSession } from "~/server/auth/guards.server";
import { clearSessionCookies, requestMeta } from "~/server/auth/session.server";
import { isAppError } from "~/server/errors.server";
import { cookieHeaders } from "~/server/forms.server";
import { getLocale, i18nFor } from "~/server/i18n.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * The impersonation banner's button: back to the admin's own session and the users table.
 * Not under /admin: while impersonating, the browser's session is the user's.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const auth = getAuthSession(context);
  const lng = (await request.formData()).get("locale");
  const locale = isLocale(lng) ? lng : getLocale(context);
  if (!auth?.session.impersonatedBy) return redirect(localizePath("/", locale));
  let setCookies: string[];
  try {
    ({ setCookies } = await stopImpersonating(auth, request, requestMeta(request, context)));
  } catch (error) {
    if (!isAppError(error)) throw error;
    // The admin's own session ended meanwhile: signed out of both, to sign in again.
    return redirect(localizePath("/signin", locale), { headers: cookieHeaders(clearSessionCookies()) });
  }
  return redirectWithToast(
    localizePath("/admin/users", locale),
    { type: "success", title: i18nFor(locale).t("impersonation.stopped", { name: auth.user.name }) },
    { headers: cookieHeaders(setCookies) },
  );
}

export function loader() {
  return new Response(null, { status: 405, headers: { Allow: "POST" } });
}
