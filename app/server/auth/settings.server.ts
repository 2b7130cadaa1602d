/**
 * What the account settings' section pages share on the server: where a service's refusal
 * goes on their forms, and the answer to a success.
 */
import { localizePath, type Locale } from "~/i18n/config";
import { settingsPath, type SettingsSection } from "~/lib/settings";
import { clearCookieCacheCookie, sessionDataCookieName } from "~/server/auth/session.server";
import { cookieHeaders, type FieldErrors } from "~/server/forms.server";
import { redirectWithToast } from "~/server/toast.server";

/** The fields the services' refusals go next to, in the sections that have them. */
export const SETTINGS_FIELDS: FieldErrors = {
  INVALID_PASSWORD: "currentPassword",
  PASSWORD_TOO_SHORT: "newPassword",
  PASSWORD_TOO_LONG: "newPassword",
  INVALID_EMAIL: "newEmail",
  EMAIL_IS_THE_SAME: "newEmail",
  USER_ALREADY_EXISTS: "newEmail",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "newEmail",
  COULD_NOT_UPDATE_EMAIL: "newEmail",
};

/**
 * One of a section's forms: a refusal answers it under its key (useSectionForm shows it on
 * that form), so a page with several forms shows the error on the one that was sent.
 */
export const sectionForm = <K extends string>(key: K) => ({ extra: () => ({ key }), fields: SETTINGS_FIELDS });

/** A section's address in the page's language. */
export const settingsHere = (section: SettingsSection, locale: Locale): string =>
  localizePath(settingsPath(section), locale);

/**
 * A success redirects back to the section (replacing the history entry) with a toast, so
 * every loader runs again and the page, the navbar and the lists show the new state.
 */
export function settingsDone(here: string, title: string, description?: string, setCookies: readonly string[] = []) {
  const headers = cookieHeaders(setCookies, new Headers({ "X-Remix-Replace": "true" }));
  // The cookie cache holds the old user for up to a minute: drop it unless replaced.
  if (!setCookies.some((cookie) => cookie.startsWith(`${sessionDataCookieName()}=`))) {
    headers.append("Set-Cookie", clearCookieCacheCookie());
  }
  return redirectWithToast(here, { type: "success", title, description }, { headers });
}
