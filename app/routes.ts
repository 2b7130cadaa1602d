import { type RouteConfig, type RouteConfigEntry, index, layout, prefix, route } from "@react-router/dev/routes";

/**
 * Every page exists unprefixed (English) and under each other locale's prefix: one tree
 * under an optional `:lang` segment, so matching costs the same however many languages
 * there are. The root's i18n middleware answers 404 for a prefix that is not one of ours.
 */
const pages: RouteConfigEntry[] = prefix(":lang?", [
  // Home and pricing have no layout: they draw their own full-bleed chrome.
  index("routes/home.tsx"),
  route("pricing", "routes/pricing.tsx"),
  layout("routes/layouts/default.tsx", [
    route("403", "routes/forbidden.tsx"),
    // Not guest-only: a verified link signs the visitor in before they land here.
    route("verify-email", "routes/verify-email.tsx"),
    // The invitation email's link: for anyone (the page sends strangers to sign in or up).
    route("invitations/:id", "routes/invitations/invitation.tsx"),
    layout("routes/layouts/guest.tsx", [
      route("signin", "routes/signin.tsx"),
      // The second step of a sign-in, for users with two-factor (a pending cookie says who).
      route("signin/two-factor", "routes/signin-two-factor.tsx"),
      // Single sign-on: a work email or organization slug, then the organization's identity provider.
      route("signin/sso", "routes/signin-sso.tsx"),
      route("signup", "routes/signup.tsx"),
      route("forgot-password", "routes/forgot-password.tsx"),
      route("reset-password", "routes/reset-password.tsx"),
    ]),
  ]),
  layout("routes/layouts/menu.tsx", [
    // The signed-in home: where sign-in, verification and the second step land.
    route("dashboard", "routes/dashboard.tsx"),
    // Account settings: one page per section under a tab bar, each with its own address and forms.
    route("profile", "routes/profile/layout.tsx", [
      index("routes/profile/index.tsx"),
      route("email", "routes/profile/email.tsx"),
      route("security", "routes/profile/security.tsx"),
      route("sessions", "routes/profile/sessions.tsx"),
      route("data", "routes/profile/data.tsx"),
      route("api-keys", "routes/profile/api-keys.tsx"),
    ]),
    route("profile/two-factor", "routes/profile/two-factor.tsx"),
    // "Download my data": a resource route, a plain link in the settings' data section.
    route("profile/data.json", "routes/profile/data-json.ts"),
    // The passkey section's rename and delete forms (in settings' security) post here (no page of its own).
    route("profile/passkeys", "routes/profile/passkeys.tsx"),
    route("billing", "routes/billing/billing.tsx"),
    // Where the provider's checkout returns; it waits for the webhook.
    route("billing/success", "routes/billing/success.tsx"),
    // Between the pricing page and the provider's checkout: who pays.
    route("checkout", "routes/billing/checkout.tsx"),
    route("organizations", "routes/organizations/organizations.tsx"),
    // A static segment wins over :slug, so the slug "new" is refused (organization-forms.ts).
    route("organizations/new", "routes/organizations/new-organization.tsx"),
    // An organization is a workspace of sections, each at its own address under one header
    // and tab row. The confirmations are pages of their own (they work without JavaScript),
    // drawn as a dialog over the section they are opened from.
    route("organizations/:slug", "routes/organizations/workspace/layout.tsx", [
      index("routes/organizations/workspace/overview.tsx"),
      route("members", "routes/organizations/workspace/members.tsx", [
        route(":memberId/remove", "routes/organizations/remove-member.tsx"),
      ]),
      route("invitations", "routes/organizations/workspace/invitations.tsx"),
      route("teams", "routes/organizations/workspace/teams.tsx", [
        // A team's name and members, then its removal.
        route(":teamId", "routes/organizations/team.tsx"),
        route(":teamId/remove", "routes/organizations/remove-team.tsx"),
      ]),
      route("settings", "routes/organizations/workspace/settings.tsx", [
        route("leave", "routes/organizations/leave-organization.tsx"),
        route("delete", "routes/organizations/delete-organization.tsx"),
      ]),
      route("billing", "routes/organizations/workspace/billing.tsx"),
      // The SCIM base URL and tokens of one SSO connection.
      route("sso/:providerId/scim", "routes/organizations/workspace/sso-scim.tsx"),
      // Single sign-on: the organization's identity providers; "new" is a static segment, so
      // it wins over :providerId (and is a reserved provider id).
      route("sso", "routes/organizations/workspace/sso.tsx"),
      route("sso/new", "routes/organizations/workspace/sso-new.tsx"),
      route("sso/:providerId", "routes/organizations/workspace/sso-connection.tsx", [
        route("remove", "routes/organizations/workspace/sso-remove.tsx"),
      ]),
      // Who did what in the organization, for the roles that may read it; and the same as a
      // download (a resource route).
      route("roles", "routes/organizations/workspace/roles.tsx", [
        route(":roleId/delete", "routes/organizations/workspace/role-delete.tsx"),
      ]),
      route("roles/:roleId", "routes/organizations/workspace/role.tsx"),
      route("audit-log", "routes/organizations/workspace/audit-log.tsx"),
      route("audit-log.csv", "routes/organizations/workspace/audit-log-csv.ts"),
      // The organization's API keys, for the roles that manage them.
      route("api-keys", "routes/organizations/workspace/api-keys.tsx"),
    ]),
  ]),
  route("admin", "routes/layouts/admin.tsx", [
    route("dashboard", "routes/admin/dashboard.tsx"),
    // The create, ban, password, two-factor and delete dialogs are pages of their own over the table.
    route("users", "routes/admin/users.tsx", [
      route("new", "routes/admin/new-user.tsx"),
      route(":userId/ban", "routes/admin/ban-user.tsx"),
      route(":userId/password", "routes/admin/user-password.tsx"),
      route(":userId/two-factor", "routes/admin/reset-two-factor.tsx"),
      route(":userId/delete", "routes/admin/delete-user.tsx"),
    ]),
    route("subscriptions", "routes/admin/subscriptions.tsx"),
    route("maintenance/database", "routes/admin/maintenance/database.tsx"),
    route("maintenance/audit-log", "routes/admin/maintenance/audit-log.tsx"),
    // The audit log under the page's filter, as a download (a resource route).
    route("maintenance/audit-log.csv", "routes/admin/maintenance/audit-log-csv.ts"),
    route("maintenance/migrations", "routes/admin/maintenance/migrations.tsx"),
  ]),
]);

export default [
  ...pages,
  route("sitemap.xml", "routes/resources/sitemap.ts"),
  route("robots.txt", "routes/resources/robots.ts"),
  route("set-locale", "routes/resources/set-locale.ts"),
  route("signout", "routes/resources/signout.ts"),
  route("stop-impersonating", "routes/resources/stop-impersonating.ts"),
  route("check-slug", "routes/resources/check-slug.ts"),
  route("api/auth/*", "routes/api/auth.ts"),
  // Anything else, in any locale: the 404 page (or the fatal 404 for an unsupported prefix).
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
