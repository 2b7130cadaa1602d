import { expect, test, type Locator, type Page } from "@playwright/test";
import { BASE_URL, OIDC_ISSUER } from "../../playwright.config";
import { stepAt, totp, secretOfURI } from "../support/totp";
import {
  auditThemes,
  auditPage,
  expectNoProblems,
  focusState,
  openPage,
  pagePatterns,
  settled,
  tabTo,
} from "./support/a11y";
import { ADMIN } from "./support/admin";
import { auditLayouts, inLocale } from "./support/layout";
import { formWith, signedInAccount, texts, toast, uniqueEmail } from "./support/auth";
import { waitForLink } from "./support/mail";
import { addMember, otherAccount } from "./support/organizations";

// Accessibility: axe-core (WCAG 2.0/2.1 A and AA) on every page of app/routes.ts, in the light
// and the dark theme, failing on any serious or critical violation. The pages are listed in
// PAGES by their route pattern; a test compares that list with the route table, so a new page
// cannot be forgotten. Each area (a guest, the second sign-in step, a signed-in owner of an
// organization and the person they invite, the admin) sets itself up once and visits its
// pages directly.

/** Who looks at a page; each is one test with its own set-up. */
type Area = "guest" | "second-step" | "two-factor-on" | "user" | "invitee" | "admin";

interface Visit {
  area: Area;
  /** The URL; `{name}` is filled from the area's set-up (`{slug}`, `{userId}`…). */
  url: string;
  /** Where the visit must land (a pathname, or a pattern), when not `url`'s own pathname. */
  lands?: string | RegExp;
  /** What must be on the page before axe runs (beyond the URL). */
  shows?: (page: Page) => Promise<void>;
  /** The root's error page (404) is drawn without the app, which never marks hydration. */
  errorPage?: true;
}

const dialog = async (page: Page) => expect(page.getByTestId("confirm-dialog")).toBeVisible();
const heading = async (page: Page) => expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
const auditList = async (page: Page) => expect(page.getByTestId("audit-list")).toBeVisible();

/** Every page pattern of app/routes.ts (without the locale prefix), and its visits. */
const PAGES: Record<string, Visit[]> = {
  "": [
    { area: "guest", url: "/", shows: heading },
    { area: "guest", url: "/ja", shows: heading },
    { area: "user", url: "/", shows: heading },
  ],
  pricing: [
    { area: "guest", url: "/pricing", shows: heading },
    { area: "guest", url: "/zh-CN/pricing", shows: heading },
  ],
  "403": [
    { area: "guest", url: "/403", shows: heading },
    // A signed-in person who is not an admin, on an admin page.
    { area: "user", url: "/admin/dashboard", lands: "/403", shows: heading },
  ],
  // The signed-in home, with an organization (the user) and without one (the admin).
  dashboard: [
    { area: "user", url: "/dashboard", shows: heading },
    { area: "admin", url: "/dashboard", shows: heading },
  ],
  "verify-email": [
    { area: "guest", url: "/verify-email", shows: heading },
    // Verified and signed in: sent on to the dashboard.
    { area: "user", url: "/verify-email", lands: "/dashboard", shows: heading },
  ],
  "invitations/:id": [
    { area: "guest", url: "/invitations/{invitationId}", shows: heading },
    // The organization's owner is not the invitation's recipient.
    { area: "user", url: "/invitations/{invitationId}", shows: heading },
    {
      area: "invitee",
      url: "/invitations/{invitationId}",
      shows: (page) => expect(page.getByTestId("invitation")).toBeVisible(),
    },
    {
      area: "invitee",
      url: "/fr/invitations/{invitationId}",
      shows: (page) => expect(page.getByTestId("invitation")).toBeVisible(),
    },
  ],
  signin: [
    { area: "guest", url: "/signin", shows: heading },
    { area: "guest", url: "/ja/signin", shows: heading },
  ],
  "signin/sso": [
    { area: "guest", url: "/signin/sso", shows: heading },
    // Sent here by a sign-in its organization requires single sign-on for: the explanation, filled in.
    { area: "guest", url: "/fr/signin/sso?error=sso_required&email=ada%40corp.example", shows: heading },
  ],
  "signin/two-factor": [
    { area: "second-step", url: "/signin/two-factor", shows: heading },
    { area: "second-step", url: "/signin/two-factor?method=backup-code", shows: heading },
  ],
  signup: [
    { area: "guest", url: "/signup", shows: heading },
    { area: "guest", url: "/fr/signup", shows: heading },
  ],
  "forgot-password": [{ area: "guest", url: "/forgot-password", shows: heading }],
  "reset-password": [
    // No token, or a spent one: the "ask for a new link" panel.
    { area: "guest", url: "/reset-password?error=INVALID_TOKEN", lands: "/reset-password", shows: heading },
    // The emailed link's token: the new password form.
    { area: "guest", url: "/reset-password?token={resetToken}", lands: "/reset-password", shows: heading },
  ],
  // Account settings: the layout's tabs over its index (the profile) and one page per section.
  profile: [
    { area: "user", url: "/profile", shows: heading },
    { area: "user", url: "/zh-CN/profile", shows: heading },
  ],
  "profile/email": [{ area: "user", url: "/profile/email", shows: heading }],
  "profile/security": [
    { area: "user", url: "/profile/security", shows: heading },
    { area: "user", url: "/ja/profile/security", shows: heading },
    { area: "two-factor-on", url: "/profile/security", shows: heading },
  ],
  "profile/sessions": [{ area: "user", url: "/profile/sessions", shows: heading }],
  "profile/data": [{ area: "user", url: "/profile/data", shows: heading }],
  "profile/api-keys": [
    { area: "user", url: "/profile/api-keys", shows: heading },
    { area: "user", url: "/zh-CN/profile/api-keys", shows: heading },
  ],
  "profile/two-factor": [
    { area: "user", url: "/profile/two-factor", shows: heading },
    // Switched on: the backup codes and trusted devices.
    { area: "two-factor-on", url: "/profile/two-factor", shows: heading },
  ],
  billing: [
    { area: "user", url: "/billing", shows: (page) => expect(page.getByTestId("subscription").first()).toBeVisible() },
  ],
  "billing/success": [
    // Subscribed (the stand-in's webhook has arrived)…
    {
      area: "user",
      url: "/billing/success?reference={userId}",
      shows: (page) => expect(page.getByTestId("checkout-success")).toBeVisible(),
    },
    // …and still waiting for it (the organization never went through a checkout).
    { area: "user", url: "/billing/success?reference={organizationId}", shows: heading },
  ],
  checkout: [
    {
      area: "user",
      url: "/checkout?plan=team&interval=yearly",
      shows: (page) => expect(page.getByTestId("checkout-price")).toBeVisible(),
    },
    {
      area: "user",
      url: "/ja/checkout?plan=pro&interval=monthly",
      shows: (page) => expect(page.getByTestId("checkout-price")).toBeVisible(),
    },
  ],
  organizations: [{ area: "user", url: "/organizations", shows: heading }],
  "organizations/new": [
    { area: "user", url: "/organizations/new", shows: heading },
    { area: "user", url: "/ja/organizations/new", shows: heading },
  ],
  "organizations/:slug": [
    { area: "user", url: "/organizations/{slug}", shows: heading },
    { area: "user", url: "/ja/organizations/{slug}", shows: heading },
  ],
  "organizations/:slug/members": [
    { area: "user", url: "/organizations/{slug}/members", shows: heading },
    { area: "user", url: "/ja/organizations/{slug}/members", shows: heading },
  ],
  "organizations/:slug/invitations": [
    { area: "user", url: "/organizations/{slug}/invitations", shows: heading },
    { area: "user", url: "/fr/organizations/{slug}/invitations", shows: heading },
  ],
  "organizations/:slug/teams": [{ area: "user", url: "/organizations/{slug}/teams", shows: heading }],
  "organizations/:slug/settings": [
    { area: "user", url: "/organizations/{slug}/settings", shows: heading },
    { area: "user", url: "/zh-CN/organizations/{slug}/settings", shows: heading },
  ],
  "organizations/:slug/billing": [{ area: "user", url: "/organizations/{slug}/billing", shows: heading }],
  "organizations/:slug/audit-log": [
    { area: "user", url: "/organizations/{slug}/audit-log", shows: auditList },
    { area: "user", url: "/zh-CN/organizations/{slug}/audit-log?category=organization", shows: auditList },
  ],
  "organizations/:slug/sso/:providerId/scim": [
    { area: "user", url: "/organizations/{slug}/sso/{providerId}/scim", shows: heading },
    { area: "user", url: "/ja/organizations/{slug}/sso/{providerId}/scim", shows: heading },
  ],
  "organizations/:slug/api-keys": [
    { area: "user", url: "/organizations/{slug}/api-keys", shows: heading },
    { area: "user", url: "/fr/organizations/{slug}/api-keys", shows: heading },
  ],
  "organizations/:slug/sso": [
    { area: "user", url: "/organizations/{slug}/sso", shows: heading },
    { area: "user", url: "/ja/organizations/{slug}/sso", shows: heading },
  ],
  "organizations/:slug/sso/new": [
    { area: "user", url: "/organizations/{slug}/sso/new", shows: heading },
    { area: "user", url: "/fr/organizations/{slug}/sso/new?kind=saml", shows: heading },
  ],
  "organizations/:slug/sso/:providerId": [
    { area: "user", url: "/organizations/{slug}/sso/{providerId}", shows: heading },
    { area: "user", url: "/zh-CN/organizations/{slug}/sso/{providerId}", shows: heading },
  ],
  "organizations/:slug/sso/:providerId/remove": [
    { area: "user", url: "/organizations/{slug}/sso/{providerId}/remove", shows: dialog },
  ],
  "organizations/:slug/roles": [
    { area: "user", url: "/organizations/{slug}/roles", shows: heading },
    { area: "user", url: "/fr/organizations/{slug}/roles", shows: heading },
  ],
  "organizations/:slug/roles/:roleId": [
    { area: "user", url: "/organizations/{slug}/roles/{roleId}", shows: heading },
    { area: "user", url: "/ja/organizations/{slug}/roles/{roleId}", shows: heading },
  ],
  "organizations/:slug/roles/:roleId/delete": [
    { area: "user", url: "/organizations/{slug}/roles/{roleId}/delete", shows: dialog },
  ],
  "organizations/:slug/members/:memberId/remove": [
    { area: "user", url: "/organizations/{slug}/members/{memberId}/remove", shows: dialog },
  ],
  "organizations/:slug/teams/:teamId": [{ area: "user", url: "/organizations/{slug}/teams/{teamId}", shows: dialog }],
  "organizations/:slug/teams/:teamId/remove": [
    { area: "user", url: "/organizations/{slug}/teams/{teamId}/remove", shows: dialog },
  ],
  "organizations/:slug/settings/leave": [{ area: "user", url: "/organizations/{slug}/settings/leave", shows: dialog }],
  "organizations/:slug/settings/delete": [
    { area: "user", url: "/organizations/{slug}/settings/delete", shows: dialog },
  ],
  // The console's layout route: /admin is sent on to the dashboard (navigation.ts).
  admin: [{ area: "admin", url: "/admin", lands: "/admin/dashboard", shows: heading }],
  "admin/dashboard": [
    { area: "admin", url: "/admin/dashboard", shows: heading },
    { area: "admin", url: "/zh-CN/admin/dashboard", shows: heading },
  ],
  "admin/users": [{ area: "admin", url: "/admin/users", shows: heading }],
  "admin/users/new": [{ area: "admin", url: "/admin/users/new", shows: dialog }],
  "admin/users/:userId/ban": [{ area: "admin", url: "/admin/users/{userId}/ban", shows: dialog }],
  "admin/users/:userId/password": [{ area: "admin", url: "/admin/users/{userId}/password", shows: dialog }],
  "admin/users/:userId/two-factor": [{ area: "admin", url: "/admin/users/{userId}/two-factor", shows: dialog }],
  "admin/users/:userId/delete": [{ area: "admin", url: "/admin/users/{userId}/delete", shows: dialog }],
  "admin/subscriptions": [{ area: "admin", url: "/admin/subscriptions", shows: heading }],
  "admin/maintenance/database": [{ area: "admin", url: "/admin/maintenance/database", shows: heading }],
  "admin/maintenance/audit-log": [{ area: "admin", url: "/admin/maintenance/audit-log", shows: heading }],
  "admin/maintenance/migrations": [{ area: "admin", url: "/admin/maintenance/migrations", shows: heading }],
  // Anything else: the root's 404 page.
  "*": [
    { area: "guest", url: "/no-such-page", errorPage: true, shows: heading },
    { area: "guest", url: "/ja/no-such-page", errorPage: true, shows: heading },
  ],
};

test("every page of app/routes.ts is in the accessibility list", () => {
  const routes = pagePatterns();
  expect(
    routes.filter((pattern) => !(pattern in PAGES)),
    "pages with no accessibility check: add them to PAGES",
  ).toEqual([]);
  expect(
    Object.keys(PAGES).filter((pattern) => !routes.includes(pattern)),
    "PAGES names routes that no longer exist",
  ).toEqual([]);
});

/** The API with the page's cookies; a state-changing call names our origin (origin.server.ts). */
async function api<T>(page: Page, path: string, data?: unknown): Promise<T> {
  const response = data
    ? await page.request.post(`/api/auth${path}`, { data, headers: { Origin: BASE_URL } })
    : await page.request.get(`/api/auth${path}`);
  expect(response.status(), `${path}: ${await response.text()}`).toBe(200);
  return (await response.json()) as T;
}

/** Signs in through the page (the sign-in form's own button: the passkey button also says "Sign in"). */
async function signIn(page: Page, email: string, password: string) {
  const t = texts("en");
  await page.goto("/signin");
  const form = formWith(page, t("signIn.submit"));
  await form.getByLabel(t("form.email"), { exact: true }).fill(email);
  await form.getByLabel(t("form.password"), { exact: true }).fill(password);
  await form.getByRole("button", { name: t("signIn.submit"), exact: true }).click();
}

/**
 * Visits the area's pages in both themes, then each page once more in every language at a
 * phone's and a laptop's width (support/layout.ts), and fails with every problem found.
 */
async function auditArea(page: Page, area: Area, ids: Record<string, string> = {}) {
  const problems: string[] = [];
  const laidOut = new Set<string>();
  for (const visits of Object.values(PAGES)) {
    for (const visit of visits.filter((candidate) => candidate.area === area)) {
      const url = visit.url.replace(/{(\w+)}/g, (_, name: string) => {
        if (!(name in ids)) throw new Error(`${visit.url}: the ${area} set-up gives no ${name}`);
        return encodeURIComponent(ids[name]!);
      });
      const lands = visit.lands ?? new URL(url, BASE_URL).pathname;
      problems.push(
        ...(await auditPage(
          page,
          url,
          async (page) => {
            if (typeof lands === "string") await expect(page).toHaveURL((href) => href.pathname === lands);
            else await expect(page).toHaveURL(lands);
            await visit.shows?.(page);
          },
          { errorPage: visit.errorPage },
        )),
      );
      const bare = inLocale(visit.url, "");
      if (laidOut.has(bare)) continue;
      laidOut.add(bare);
      problems.push(
        ...(await auditLayouts(page, url, async (page) => visit.shows?.(page), {
          name: `${area}${bare.replace(/[^\w]+/g, "-")}`,
          hydrates: !visit.errorPage,
        })),
      );
    }
  }
  return problems;
}

test.describe("axe, light and dark", () => {
  test("guest pages", async ({ page, browser }) => {
    test.setTimeout(900_000);
    // An invitation and a password reset link, made elsewhere.
    const elsewhere = await browser.newContext();
    const owner = await elsewhere.newPage();
    const account = await signedInAccount(owner, "en", "Ada Lovelace");
    const slug = `guest-${Date.now().toString(36)}`;
    const organization = await api<{ id: string }>(owner, "/organization/create", { name: "Guest Co", slug });
    const invitation = await api<{ id: string }>(owner, "/organization/invite-member", {
      email: uniqueEmail("a11y-guest"),
      role: "member",
      organizationId: organization.id,
    });
    await elsewhere.close();
    await page.request.post("/api/auth/request-password-reset", {
      data: { email: account.email, redirectTo: "/reset-password" },
    });
    const link = await waitForLink(account.email, "/api/auth/reset-password/");
    const resetToken = new URL(link.url).pathname.split("/").pop()!;

    const problems = await auditArea(page, "guest", { invitationId: invitation.id, resetToken });

    // Forms with their errors: a refused sign-in, and sign-up fields that do not validate.
    const t = texts("en");
    await openPage(page, "/signin");
    const signInForm = formWith(page, t("signIn.submit"));
    await signInForm.getByLabel(t("form.email"), { exact: true }).fill(account.email);
    await signInForm.getByLabel(t("form.password"), { exact: true }).fill("not-the-password");
    await signInForm.getByRole("button", { name: t("signIn.submit"), exact: true }).click();
    await expect(page.getByTestId("form-errors")).toBeVisible();
    problems.push(...(await auditThemes(page, "/signin, refused")));
    await openPage(page, "/signup");
    const signUpForm = formWith(page, t("signUp.submit"));
    await signUpForm.getByLabel(t("form.email"), { exact: true }).fill("not-an-email");
    await signUpForm.getByLabel(t("form.password"), { exact: true }).fill("short");
    await signUpForm.getByRole("button", { name: t("signUp.submit") }).click();
    await expect(page.getByTestId("field-errors").first()).toBeVisible();
    problems.push(...(await auditThemes(page, "/signup, with field errors")));
    expectNoProblems(problems);
  });

  test("the second sign-in step, and two-factor settings switched on", async ({ page }) => {
    test.setTimeout(900_000);
    const t = texts("en");
    const { email, password } = await signedInAccount(page, "en");
    const problems: string[] = [];

    // The setup (QR code, secret, backup codes) is what the password form answers with.
    await openPage(page, "/profile/two-factor");
    const enable = formWith(page, t("twoFactor.settings.enable"));
    await enable.getByLabel(t("form.password"), { exact: true }).fill(password);
    await enable.getByRole("button", { name: t("twoFactor.settings.enable") }).click();
    await expect(page.getByTestId("totp-qr").locator("svg")).toBeVisible();
    problems.push(...(await auditThemes(page, "/profile/two-factor, setting up")));

    // Switched on through the JSON API instead (a fresh secret replaces the page's).
    const { totpURI } = await api<{ totpURI: string }>(page, "/two-factor/enable", { password });
    const secret = secretOfURI(totpURI);
    await api(page, "/two-factor/verify-totp", { code: totp(secret) });
    await page.context().clearCookies();

    // Signed in through the page: the second step.
    await signIn(page, email, password);
    await expect(page).toHaveURL(/\/signin\/two-factor/);
    problems.push(...(await auditArea(page, "second-step")));

    // Through it with the next code (the one that switched it on is spent).
    await page.goto("/signin/two-factor");
    await formWith(page, t("twoFactor.signIn.submit"))
      .getByLabel(t("twoFactor.signIn.totp.label"), { exact: true })
      .fill(totp(secret, stepAt() + 1));
    await page.getByRole("button", { name: t("twoFactor.signIn.submit") }).click();
    await expect(page).not.toHaveURL(/\/signin/);
    // Its toast, held open by the pointer resting on it (as a reader's would).
    const welcome = toast(page, t("signIn.signedIn", { name: "Grace Hopper" }));
    await welcome.hover();
    problems.push(...(await auditThemes(page, "after the second step, with its toast")));
    problems.push(...(await auditArea(page, "two-factor-on")));
    expectNoProblems(problems);
  });

  test("a signed-in person's pages: profile, billing, organizations and their dialogs", async ({ page, browser }) => {
    test.setTimeout(900_000);
    const t = texts("en");
    await signedInAccount(page, "en");
    const { user } = await api<{ user: { id: string } }>(page, "/get-session");
    const stamp = Date.now().toString(36);
    const slug = `a11y-${stamp}`;

    // An organization with another member (in a team) and a pending invitation.
    const organization = await api<{ id: string }>(page, "/organization/create", { name: `Acme ${stamp}`, slug });
    const elsewhere = await browser.newContext();
    const colleague = await otherAccount(elsewhere.request, "Alan Turing");
    addMember(slug, colleague.email);
    const team = await api<{ id: string }>(page, "/organization/create-team", {
      name: "Design",
      organizationId: organization.id,
    });
    const full = await api<{ members: { id: string; userId: string; user: { email: string } }[] }>(
      page,
      `/organization/get-full-organization?organizationSlug=${slug}`,
    );
    const member = full.members.find((candidate) => candidate.user.email === colleague.email)!;
    await api(page, "/organization/add-team-member", { teamId: team.id, userId: member.userId });
    // A single sign-on connection, discovered from the OIDC stand-in.
    const provider = await api<{ providerId: string }>(page, "/sso/register", {
      providerId: `a11y-idp-${stamp}`,
      issuer: OIDC_ISSUER,
      domain: `a11y-${stamp}.example.com`,
      organizationId: organization.id,
      oidcConfig: { clientId: "a11y-client", clientSecret: "a11y-secret" },
    });

    // The person invited, signed in in their own browser.
    const inviteePage = await elsewhere.newPage();
    const invitee = await signedInAccount(inviteePage, "en", "Katherine Johnson");
    const invitation = await api<{ id: string }>(page, "/organization/invite-member", {
      email: invitee.email,
      role: "member",
      organizationId: organization.id,
    });
    const role = await api<{ roleData: { id: string } }>(page, "/organization/create-role", {
      role: "reviewer",
      permission: { auditLog: ["read"], team: ["create", "update"] },
      organizationId: organization.id,
    });

    // A subscription of one's own, through the checkout and the provider's stand-in.
    await page.goto("/checkout?plan=pro&interval=monthly");
    await page.getByRole("button", { name: t("billing:checkout.submit") }).click();
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(/\/billing\/success\?reference=/);

    const ids = {
      userId: user.id,
      organizationId: organization.id,
      slug,
      memberId: member.id,
      teamId: team.id,
      invitationId: invitation.id,
      providerId: provider.providerId,
      roleId: role.roleData.id,
    };
    const problems = await auditArea(page, "user", ids);
    problems.push(...(await auditArea(inviteePage, "invitee", ids)));
    await elsewhere.close();

    // The shell's pop-overs, open: account, language, organizations; the search palette.
    await openPage(page, `/organizations/${slug}`);
    await page.getByRole("banner").getByLabel(t("common:nav.account")).click();
    await page.getByTestId("app-nav").getByLabel(t("common:locale.label")).click();
    await page.getByTestId("organization-switcher").getByLabel(t("common:organizations.switcher")).click();
    problems.push(...(await auditThemes(page, `/organizations/${slug}, its menus open`)));
    await page.keyboard.press("ControlOrMeta+K");
    await expect(page.getByRole("combobox", { name: t("common:search.label") })).toBeFocused();
    await page.keyboard.type("pr");
    problems.push(...(await auditThemes(page, "the search palette")));
    expectNoProblems(problems);
  });

  test("the admin console and its dialogs", async ({ page }) => {
    test.setTimeout(900_000);
    await signIn(page, ADMIN.email, ADMIN.password);
    await expect(page).not.toHaveURL(/\/signin/);
    const { user } = await api<{ user: { id: string; email: string } }>(page, "/admin/create-user", {
      email: uniqueEmail("a11y-target"),
      password: "correct-horse-battery",
      name: "Target Person",
    });
    const problems = await auditArea(page, "admin", { userId: user.id });
    // A user's row menu, open.
    await openPage(page, `/admin/users?q=${encodeURIComponent(user.email)}`);
    await page.locator(`tr[data-user="${user.email}"] summary`).click();
    problems.push(...(await auditThemes(page, "/admin/users, a row's menu open")));
    expectNoProblems(problems);
  });
});

/** Types into `field` after reaching it with Tab. */
async function typeInto(page: Page, field: Locator, text: string) {
  await tabTo(page, field);
  await page.keyboard.type(text);
}

/**
 * A dialog opened from `opener` by keyboard: focus moved into it, Tab and Shift+Tab go round
 * inside it (the page behind is inert), Escape closes it (its URL is left for the page's),
 * and focus is back on `opener`.
 */
async function expectModalDialog(page: Page, opener: Locator, closedURL: RegExp) {
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect
    .poll(async () => (await focusState(page))?.inDialog, { message: "focus moves into the dialog" })
    .toBe(true);
  const stops = await dialog.evaluate(
    (element) => element.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea").length,
  );
  for (const key of ["Tab", "Shift+Tab"]) {
    for (let i = 0; i < stops + 2; i++) {
      await page.keyboard.press(key);
      const focused = await focusState(page);
      // Past its last control focus may leave the page for the browser's own controls (null).
      if (focused) {
        expect(focused.inDialog, `${key} keeps focus in the dialog, not on ${focused.description}`).toBe(true);
        expect(focused.visible, `focus is visible on ${focused.description}`).toBe(true);
      }
    }
  }
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(closedURL);
  await expect(opener, "focus is back where the dialog was opened").toBeFocused();
}

test.describe("keyboard alone", () => {
  test("sign up, sign out and in, rename oneself, create an organization and open its dialogs", async ({ page }) => {
    test.setTimeout(120_000);
    const t = texts("en");
    const email = uniqueEmail("a11y-keyboard");
    const password = "correct-horse-battery";

    // ---- sign up ----
    await openPage(page, "/signup");
    const signUp = formWith(page, t("signUp.submit"));
    await typeInto(page, signUp.getByLabel(t("form.name"), { exact: true }), "Grace Hopper");
    await typeInto(page, signUp.getByLabel(t("form.email"), { exact: true }), email);
    await typeInto(page, signUp.getByLabel(t("form.password"), { exact: true }), password);
    await typeInto(page, signUp.getByLabel(t("form.confirmPassword"), { exact: true }), password);
    await tabTo(page, signUp.getByRole("button", { name: t("signUp.submit") }));
    await page.keyboard.press("Enter");
    await expect(page.getByText(t("signUp.sentTitle"))).toBeVisible();
    // The emailed link signs the new account in.
    await page.goto((await waitForLink(email, "/api/auth/verify-email")).url);
    await expect(page).toHaveURL(/\/dashboard$/);
    await settled(page, "light");

    // ---- sign out from the account menu, and in again ----
    await tabTo(page, page.getByRole("banner").getByLabel(t("common:nav.account")));
    await page.keyboard.press("Enter");
    await tabTo(page, page.getByRole("button", { name: t("common:nav.signOut") }));
    await page.keyboard.press("Enter");
    await expect(toast(page, t("common:toast.signedOut"))).toBeVisible();
    await settled(page, "light");
    await tabTo(page, page.getByRole("banner").getByRole("link", { name: t("common:nav.signIn") }));
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/signin$/);
    const signIn = formWith(page, t("signIn.submit"));
    await typeInto(page, signIn.getByLabel(t("form.email"), { exact: true }), email);
    await typeInto(page, signIn.getByLabel(t("form.password"), { exact: true }), password);
    // Enter in a field sends its form.
    await page.keyboard.press("Enter");
    await expect(toast(page, t("signIn.signedIn", { name: "Grace Hopper" }))).toBeVisible();

    // ---- change one's name ----
    await openPage(page, "/profile");
    const profile = formWith(page, t("profile.profile.submit"));
    await tabTo(page, profile.getByLabel(t("profile.profile.name"), { exact: true }));
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("Grace Brewster Hopper");
    await tabTo(page, profile.getByRole("button", { name: t("profile.profile.submit") }));
    await page.keyboard.press("Space");
    await expect(toast(page, t("profile.profile.saved"))).toBeVisible();
    await page.reload();
    await expect(profile.getByLabel(t("profile.profile.name"), { exact: true })).toHaveValue("Grace Brewster Hopper");

    // ---- create an organization ----
    await openPage(page, "/organizations");
    await tabTo(page, page.getByRole("main").getByRole("link", { name: t("organization:list.create") }));
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/organizations\/new$/);
    const stamp = Date.now().toString(36);
    await typeInto(page, page.getByLabel(t("organization:form.name"), { exact: true }), `Keyboard Co ${stamp}`);
    await expect(page.getByTestId("slug-status")).toHaveText(t("organization:new.slugAvailable"));
    await tabTo(page, page.getByRole("button", { name: t("organization:new.submit") }));
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(`/organizations/keyboard-co-${stamp}`);

    // ---- its settings' dialog: focus goes in, stays in, Escape closes, focus comes back ----
    // (The only owner has no Leave to open: the section says why instead.)
    const settings = page.getByRole("navigation", {
      name: t("organization:nav.label", { name: `Keyboard Co ${stamp}` }),
    });
    await tabTo(page, settings.getByRole("link", { name: t("organization:nav.settings") }), { max: 80 });
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(`/organizations/keyboard-co-${stamp}/settings`);
    const opener = page.getByRole("main").getByRole("link", { name: t("organization:delete.open"), exact: true });
    await tabTo(page, opener, { max: 80 });
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(`/organizations/keyboard-co-${stamp}/settings/delete`);
    await expectModalDialog(page, opener, new RegExp(`/organizations/keyboard-co-${stamp}/settings$`));
  });

  test("the small-screen menu: its button shows focus, Space opens it, its links follow", async ({ page }) => {
    const t = texts("en");
    await page.setViewportSize({ width: 390, height: 800 });
    await openPage(page, "/");
    // The menu button is the label of a visually hidden checkbox; tabTo checks the label shows focus.
    await tabTo(page, page.getByRole("checkbox", { name: t("common:nav.menu") }));
    await page.keyboard.press("Space");
    const menu = page.getByTestId("nav-menu");
    await expect(menu).toBeVisible();
    await tabTo(page, menu.getByRole("link", { name: t("common:nav.pricing") }));
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/pricing$/);
  });

  for (const path of ["/pricing", "/signin"]) {
    test(`drop-down menus close on Escape, focus back on their button, and on a click elsewhere (${path})`, async ({
      page,
    }) => {
      const t = texts("en");
      // Pricing is plain HTML (decision 0020), sign-in is React's: the same inline script serves both.
      await openPage(page, path);
      const languages = page
        .getByRole("banner")
        .locator("details[data-menu]")
        .filter({ has: page.locator(`summary[aria-label="${t("common:locale.label")}"]`) });
      const language = languages.locator("summary");
      await tabTo(page, language);
      await page.keyboard.press("Enter");
      await expect(languages).toHaveAttribute("open", "");
      await tabTo(page, languages.getByRole("button", { name: "Français" }));
      await page.keyboard.press("Escape");
      await expect(languages).not.toHaveAttribute("open", "");
      await expect(language).toBeFocused();

      await language.click();
      await expect(languages).toHaveAttribute("open", "");
      await page.getByRole("heading", { level: 1 }).click();
      await expect(languages).not.toHaveAttribute("open", "");
    });
  }

  test("the admin creates a user in the dialog, and opens a row's dialog from its menu", async ({ page }) => {
    test.setTimeout(90_000);
    const t = texts("en");
    await signIn(page, ADMIN.email, ADMIN.password);
    await expect(page).not.toHaveURL(/\/signin/);
    const email = uniqueEmail("a11y-created");

    await openPage(page, "/admin/users");
    const create = page.getByRole("link", { name: t("admin:users.create") });
    await tabTo(page, create);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/admin\/users\/new/);
    const dialog = page.getByRole("dialog");
    // The first field has focus as the dialog opens.
    await expect(dialog.getByLabel(t("form.name"), { exact: true })).toBeFocused();
    await page.keyboard.type("Keyboard Person");
    await typeInto(page, dialog.getByLabel(t("form.email"), { exact: true }), email);
    await typeInto(page, dialog.getByLabel(t("form.password"), { exact: true }), "correct-horse-battery");
    await tabTo(page, dialog.getByRole("button", { name: t("admin:users.createSubmit") }));
    await page.keyboard.press("Enter");
    await expect(toast(page, t("admin:users.created", { email }))).toBeVisible();
    await expect(dialog).toHaveCount(0);
    await expect(create, "focus is back on the link that opened the dialog").toBeFocused();

    // Again: around inside it, and out with Escape.
    await page.keyboard.press("Enter");
    await expectModalDialog(page, create, /\/admin\/users$/);

    // A row's menu (a disclosure) and its ban dialog.
    await openPage(page, `/admin/users?q=${encodeURIComponent(email)}`);
    const row = page.locator(`tr[data-user="${email}"]`);
    await tabTo(page, row.locator("summary"));
    await page.keyboard.press("Enter");
    const ban = row.getByRole("link", { name: t("admin:users.actions.ban") });
    await tabTo(page, ban);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/admin\/users\/[^/]+\/ban\?q=/);
    // The menu closed as its item opened the dialog: focus comes back to the menu's button.
    await expectModalDialog(page, row.locator("summary"), /\/admin\/users\?q=/);
  });
});
