import { redirect } from "react-router";
import { z } from "zod";
import { isLocale, localizePath } from "~/i18n/config";
import { stopImpersonating } from "~/server/admin/users.server";
import { clearSessionCookies } from "~/server/auth/session.server";
import { isAppError } from "~/server/errors.server";
import { cookieHeaders } from "~/server/forms.server";
import { i18nFor } from "~/server/i18n.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * The impersonation banner's button: back to the admin's own session and the users table.
 * Not under /admin: while impersonating, the browser's session is the user's.
 */
export const action = pageAction({
  auth: "optional",
  intents: (intent) => ({
    "stop-impersonating": intent({
      // The button sends only the page's `locale`; without one, the request's language.
      schema: z.object({}),
      rateLimit: "/stop-impersonating",
      async run({ args, auth, meta, locale: requestLocale, formData }) {
        const lng = formData.get("locale");
        const locale = isLocale(lng) ? lng : requestLocale;
        if (!auth?.session.impersonatedBy) return redirect(localizePath("/", locale));
        let setCookies: string[];
        try {
          ({ setCookies } = await stopImpersonating(auth, args.request, meta));
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
      },
    }),
  }),
});

export function loader() {
  return new Response(null, { status: 405, headers: { Allow: "POST" } });
}
