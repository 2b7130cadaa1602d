import { data } from "react-router";
import type { Route } from "./+types/not-found";
import { isLocale } from "~/i18n/config";

/** A language tag such as "de" or "pt-BR" that this product does not speak. */
function isUnsupportedLocalePrefix(segment: string): boolean {
  if (!/^[a-z]{2}(-[A-Za-z]{2,4})?$/.test(segment) || isLocale(segment)) return false;
  const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });
  return names.of(segment.split("-")[0]!) !== undefined;
}

/**
 * Nothing matched. A path under an unsupported language prefix fails the locale validation:
 * the fatal "Page Not Found: {path}". Anything else is "Page not found: {path}".
 */
export function loader({ request }: Route.LoaderArgs) {
  const { pathname } = new URL(request.url);
  const first = pathname.split("/")[1] ?? "";
  const message = isUnsupportedLocalePrefix(first) ? `Page Not Found: ${pathname}` : `Page not found: ${pathname}`;
  throw data({ message }, { status: 404 });
}

export default function NotFound() {
  return null;
}
