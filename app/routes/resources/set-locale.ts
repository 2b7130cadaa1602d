import { redirect } from "react-router";
import { z } from "zod";
import { isLocale, LOCALE_COOKIE, localizePath, splitLocale } from "~/i18n/config";
import { safeRedirect } from "~/lib/safe-redirect";
import { serializeCookie } from "~/server/auth/cookies.server";
import { loadEnv } from "~/server/env.server";
import { pageAction } from "~/server/page-action.server";

const YEAR = 365 * 24 * 60 * 60;

/**
 * The locale switcher posts here: remember the choice (path /, 365 days, SameSite=Lax) and go
 * to the same page and query in that language. Only paths on this site are followed, and the
 * path is checked again once the language prefix has been swapped.
 */
export const action = pageAction({
  auth: "optional",
  intents: (intent) => ({
    "set-locale": intent({
      // Read as sent, whatever it is: an unknown language is English, an unsafe path the home page.
      schema: z.object({}),
      rateLimit: "/set-locale",
      async run({ formData: form }) {
        const lng = form.get("lng");
        const locale = isLocale(lng) ? lng : "en";
        const { BASE_URL, trustedOrigins, secureCookies } = loadEnv();
        const requested = safeRedirect(form.get("redirectTo"), [BASE_URL]) ?? "/";
        const url = new URL(requested, BASE_URL);
        // The form sends the unprefixed path; strip a prefix anyway in case an old page sent one.
        const path = splitLocale(url.pathname).path;
        const target = safeRedirect(localizePath(path, locale) + url.search + url.hash, trustedOrigins);
        const cookie = serializeCookie(LOCALE_COOKIE, locale, {
          maxAge: YEAR,
          secure: secureCookies,
          httpOnly: false,
        });
        return redirect(target ?? localizePath("/", locale), { headers: { "Set-Cookie": cookie } });
      },
    }),
  }),
});

export function loader() {
  return redirect("/");
}
