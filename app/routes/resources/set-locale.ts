import { redirect } from "react-router";
import type { Route } from "./+types/set-locale";
import { isLocale, LOCALE_COOKIE, localizePath, splitLocale } from "~/i18n/config";
import { serializeCookie } from "~/server/auth/cookies.server";
import { loadEnv } from "~/server/env.server";

const YEAR = 365 * 24 * 60 * 60;

/**
 * The locale switcher posts here: remember the choice (path /, 365 days, SameSite=Lax) and go
 * to the same page and query in that language. Only same-site paths are followed.
 */
export async function action({ request }: Route.ActionArgs) {
  const form = await request.formData();
  const lng = form.get("lng");
  const target = form.get("redirectTo");
  const locale = isLocale(lng) ? lng : "en";
  const url = new URL(
    typeof target === "string" && target.startsWith("/") && !target.startsWith("//") ? target : "/",
    "http://x",
  );
  // The form sends the unprefixed path; strip a prefix anyway in case an old page sent one.
  const path = splitLocale(url.pathname).path;
  const cookie = serializeCookie(LOCALE_COOKIE, locale, {
    maxAge: YEAR,
    secure: loadEnv().secureCookies,
    httpOnly: false,
  });
  return redirect(localizePath(path, locale) + url.search + url.hash, { headers: { "Set-Cookie": cookie } });
}

export function loader() {
  return redirect("/");
}
