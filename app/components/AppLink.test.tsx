import { renderToString } from "react-dom/server";
import { Link, NavLink, StaticRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { AppLink, AppNavLink, prefetchAllowed } from "./AppLink";

describe("prefetchAllowed", () => {
  it("prefetches on normal connections and when the browser does not say", () => {
    expect(prefetchAllowed(undefined)).toBe(true);
    expect(prefetchAllowed({ effectiveType: "4g" })).toBe(true);
    expect(prefetchAllowed({ effectiveType: "2g" })).toBe(true);
  });
  it("does not prefetch on slow-2g or with save-data", () => {
    expect(prefetchAllowed({ effectiveType: "slow-2g" })).toBe(false);
    expect(prefetchAllowed({ effectiveType: "4g", saveData: true })).toBe(false);
  });
});

// This file runs without a DOM, as the server renders: AppLink and AppNavLink draw their
// anchors themselves there, and the page hydrates them into React Router's own links. So their
// markup must be React Router's, byte for byte, or hydration would not match.
const at = (location: string, element: React.ReactElement) =>
  renderToString(<StaticRouter location={location}>{element}</StaticRouter>);

const PATHS = [
  "/dashboard",
  "/fr/organizations/acme/members",
  "/organizations/acme/members?page=2",
  "/ja/profile/security",
  "/",
  // Not plain: React Router's own way.
  "/profile/data.json",
  "/a/../b",
  "/caf\u00e9",
  "https://example.com/x",
  "/pricing#plans",
];

describe("AppLink on the server", () => {
  it("draws a plain path's anchor without React Router's hooks, which need a router", () => {
    expect(renderToString(<AppLink to="/dashboard">Home</AppLink>)).toBe(
      '<a href="/dashboard" data-discover="true">Home</a>',
    );
    expect(() => renderToString(<Link to="/dashboard">Home</Link>)).toThrow();
    // A link that writes more than its anchor is React Router's own, here too.
    expect(() => renderToString(<AppLink to="/dashboard" prefetch="render" />)).toThrow();
    expect(() => renderToString(<AppLink to="/dashboard" mask="/elsewhere" />)).toThrow();
    expect(() => renderToString(<AppNavLink to="/dashboard" prefetch="render" className="" children="D" />)).toThrow();
  });

  it("writes the anchor React Router's Link writes", () => {
    for (const to of PATHS) {
      const props = { className: "link", "aria-label": "Go", target: "_self" } as const;
      expect(at("/dashboard", <AppLink to={to} {...props} />), to).toBe(
        at("/dashboard", <Link to={to} prefetch="intent" {...props} />),
      );
      expect(at("/dashboard", <AppLink to={to} discover="none" />), to).toBe(
        at("/dashboard", <Link to={to} discover="none" />),
      );
    }
  });
});

describe("AppNavLink on the server", () => {
  it("marks the page's own link, and its ancestors' unless they end there, as NavLink does", () => {
    const cases: [location: string, to: string, end: boolean][] = [
      ["/dashboard", "/dashboard", false],
      ["/Dashboard", "/dashboard", true],
      ["/organizations/acme/members", "/organizations/acme", false],
      ["/organizations/acme/members", "/organizations/acme", true],
      ["/organizations/acme-corp", "/organizations/acme", false],
      ["/organizations/acme/", "/organizations/acme/", true],
      ["/fr/profile/email", "/fr/profile", false],
      ["/fr/profile/email", "/profile", false],
      ["/admin/users", "/admin/users?page=2", true],
      ["/", "/", true],
      ["/pricing", "/", false],
      ["/x", "/profile/data.json", false],
    ];
    for (const [location, to, end] of cases) {
      for (const className of ["flex items-center", ""]) {
        const element = (
          <AppNavLink to={to} end={end} prefetch="intent" className={className}>
            <span>Label</span>
          </AppNavLink>
        );
        const reference = (
          <NavLink to={to} end={end} prefetch="intent" className={className}>
            <span>Label</span>
          </NavLink>
        );
        expect(at(location, element), `${location} ${to} ${end}`).toBe(at(location, reference));
      }
    }
    // The cases above do reach both answers.
    const dashboardLink = (location: string) =>
      at(
        location,
        <AppNavLink to="/dashboard" className="x">
          D
        </AppNavLink>,
      );
    expect(dashboardLink("/dashboard")).toContain('aria-current="page"');
    expect(dashboardLink("/pricing")).not.toContain("aria-current");
  });
});
