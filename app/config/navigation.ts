/** Where navigation rules send people. Paths are unprefixed; the current locale is kept. */
export const navigation = {
  /** Guests on a login-required page go here, with the original path in `redirect`. */
  guestRedirect: "/signin",
  /** Signed-in users on a guest-only page go here. */
  signedInRedirect: "/dashboard",
  /** Non-admins on admin pages go here. */
  forbidden: "/403",
  /**
   * Per-path rules looked up on every request. A relative target is localized; an absolute
   * URL is followed as an external redirect.
   */
  routeRules: {
    "/admin": { redirect: "/admin/dashboard" },
    // The admin pages' short names (/admin/user, /admin/subscription, …) keep working: they
    // redirect to the console's own paths, which are plural and readable.
    "/admin/user": { redirect: "/admin/users" },
    "/admin/subscription": { redirect: "/admin/subscriptions" },
    "/admin/maintenance/db-stats": { redirect: "/admin/maintenance/database" },
    "/admin/maintenance/migration": { redirect: "/admin/maintenance/migrations" },
  } as Record<string, { redirect: string }>,
};

export type Access = "public" | "guest" | "user" | "admin";

/** The pages a person can open from the search palette and that the sitemap lists. */
export const pages: { path: string; titleKey: string; access: Access; sitemap: boolean }[] = [
  { path: "/", titleKey: "pages.home", access: "public", sitemap: true },
  { path: "/pricing", titleKey: "pages.pricing", access: "public", sitemap: true },
  { path: "/signin", titleKey: "pages.signin", access: "guest", sitemap: true },
  { path: "/signup", titleKey: "pages.signup", access: "guest", sitemap: true },
  { path: "/forgot-password", titleKey: "pages.forgotPassword", access: "guest", sitemap: true },
  { path: "/dashboard", titleKey: "pages.dashboard", access: "user", sitemap: false },
  { path: "/profile", titleKey: "pages.profile", access: "user", sitemap: false },
  { path: "/profile/email", titleKey: "settings.email", access: "user", sitemap: false },
  { path: "/profile/security", titleKey: "settings.security", access: "user", sitemap: false },
  { path: "/profile/sessions", titleKey: "settings.sessions", access: "user", sitemap: false },
  { path: "/profile/data", titleKey: "settings.data", access: "user", sitemap: false },
  { path: "/organizations", titleKey: "pages.organizations", access: "user", sitemap: false },
  { path: "/organizations/new", titleKey: "pages.newOrganization", access: "user", sitemap: false },
  { path: "/billing", titleKey: "pages.billing", access: "user", sitemap: false },
  { path: "/admin/dashboard", titleKey: "pages.adminDashboard", access: "admin", sitemap: false },
  { path: "/admin/users", titleKey: "pages.adminUsers", access: "admin", sitemap: false },
  { path: "/admin/subscriptions", titleKey: "pages.adminSubscriptions", access: "admin", sitemap: false },
  { path: "/admin/maintenance/database", titleKey: "pages.adminDatabase", access: "admin", sitemap: false },
  { path: "/admin/maintenance/audit-log", titleKey: "pages.adminAuditLog", access: "admin", sitemap: false },
  { path: "/admin/maintenance/migrations", titleKey: "pages.adminMigrations", access: "admin", sitemap: false },
];

export function canOpen(access: Access, user: { isAdmin: boolean } | null): boolean {
  if (access === "public") return true;
  if (access === "guest") return !user;
  if (access === "user") return !!user;
  return !!user?.isAdmin;
}
