import { type RouteConfig, type RouteConfigEntry, index, layout, prefix, route } from "@react-router/dev/routes";
import { defaultLocale, locales, type Locale } from "./i18n/config";

/**
 * Every page exists unprefixed (English) and under each other locale's prefix. The tree is
 * written once and generated per locale here; route ids get the locale so they stay unique.
 */
function pages(locale: Locale): RouteConfigEntry[] {
  const id = (name: string) => (locale === defaultLocale ? name : `${locale}/${name}`);
  const tree = [
    // Home and pricing have no layout: they draw their own full-bleed chrome.
    index("routes/home.tsx", { id: id("home") }),
    route("pricing", "routes/pricing.tsx", { id: id("pricing") }),
    layout("routes/layouts/default.tsx", { id: id("layout-default") }, [
      route("403", "routes/forbidden.tsx", { id: id("forbidden") }),
      // Not guest-only: a verified link signs the visitor in before they land here.
      route("verify-email", "routes/verify-email.tsx", { id: id("verify-email") }),
      layout("routes/layouts/guest.tsx", { id: id("guard-guest") }, [
        route("signin", "routes/signin.tsx", { id: id("signin") }),
        route("signup", "routes/signup.tsx", { id: id("signup") }),
        route("forgot-password", "routes/forgot-password.tsx", { id: id("forgot-password") }),
        route("reset-password", "routes/reset-password.tsx", { id: id("reset-password") }),
      ]),
    ]),
    layout("routes/layouts/menu.tsx", { id: id("layout-menu") }, [
      route("profile", "routes/profile.tsx", { id: id("profile") }),
    ]),
    route("admin", "routes/layouts/admin.tsx", { id: id("layout-admin") }, [
      route("dashboard", "routes/admin/dashboard.tsx", { id: id("admin-dashboard") }),
    ]),
  ];
  return locale === defaultLocale ? tree : prefix(locale, tree);
}

export default [
  ...locales.flatMap(pages),
  route("sitemap.xml", "routes/resources/sitemap.ts"),
  route("robots.txt", "routes/resources/robots.ts"),
  route("set-locale", "routes/resources/set-locale.ts"),
  route("signout", "routes/resources/signout.ts"),
  route("api/auth/*", "routes/api/auth.ts"),
  // Anything else, in any locale: the 404 page (or the fatal 404 for an unsupported prefix).
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
