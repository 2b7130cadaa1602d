import { type ReactNode, useEffect, useState } from "react";
import { Link, type LinkProps, NavLink, type NavLinkProps, useHref, useLocation } from "react-router";
import { usePageHydrates } from "~/lib/hydration";

type Connection = { effectiveType?: string; saveData?: boolean };

/** Slow or data-saving connections should not spend bandwidth on guesses. */
export function prefetchAllowed(connection: Connection | undefined): boolean {
  return !(connection?.saveData || connection?.effectiveType === "slow-2g");
}

/**
 * Rendering on the server. There a Link is only its anchor: resolving its path against the
 * matched routes, its prefetching and its click handler are for the browser, where the page
 * hydrates into a real Link over the same markup. Those hooks were about a sixth of what a
 * signed-in page allocated (the shell and the dashboard draw some 40 links).
 */
const ON_SERVER = typeof document === "undefined";

/**
 * A path whose href Link writes as it is (React Router resolves an absolute path to itself,
 * and with no basename adds nothing): no dot segment, no hash, no character the URL parser
 * would encode. Any other `to` takes React Router's own way.
 */
const PLAIN_PATH = /^\/(?!\/)[\w\-~%/]*(?:\?[\w\-~%=&+,:]+)?$/;

/**
 * Whether the server draws the anchor of a link with `props` itself: a plain path, and nothing
 * that makes Link write more than that anchor (a mask changes its href; prefetching on render
 * adds the next page's links beside it).
 */
const drawnOnServer = (props: LinkProps): props is LinkProps & { to: string } =>
  ON_SERVER &&
  typeof props.to === "string" &&
  PLAIN_PATH.test(props.to) &&
  props.prefetch !== "render" &&
  props.mask === undefined;

/**
 * A Link that prefetches on intent, except on slow-2g or save-data connections. On a page that
 * does not hydrate it is a plain anchor: nothing would ever run its click or prefetch handlers.
 */
export function AppLink(props: LinkProps) {
  if (!usePageHydrates()) return <PlainLink {...props} />;
  if (drawnOnServer(props)) return <ServerAnchor {...props} />;
  return <PrefetchingLink {...props} />;
}

/** The links of the app's menus and tab rows: a NavLink, marked `aria-current="page"` where it leads to the page shown. */
export function AppNavLink(
  props: Omit<NavLinkProps, "className" | "children" | "style"> & { className: string; children: ReactNode },
) {
  if (drawnOnServer(props) && !props.caseSensitive) return <ServerNavAnchor {...props} />;
  return <NavLink {...props} />;
}

/** NavLink's test of whether its path is the page's (or, without `end`, one of its ancestors), in lower case. */
function isActivePath(to: string, locationPathname: string, end: boolean): boolean {
  const query = to.indexOf("?");
  const toPathname = (query < 0 ? to : to.slice(0, query)).toLowerCase();
  const here = locationPathname.toLowerCase();
  const endSlash = toPathname !== "/" && toPathname.endsWith("/") ? toPathname.length - 1 : toPathname.length;
  return here === toPathname || (!end && here.startsWith(toPathname) && here.charAt(endSlash) === "/");
}

function ServerNavAnchor({
  "aria-current": ariaCurrent = "page",
  end = false,
  className,
  caseSensitive: _caseSensitive,
  children,
  ...props
}: Parameters<typeof AppNavLink>[0] & { to: string }) {
  const active = isActivePath(props.to, useLocation().pathname, end);
  return (
    <ServerAnchor
      {...props}
      aria-current={active ? ariaCurrent : undefined}
      className={active ? (className ? `${className} active` : "active") : className}
    >
      {children}
    </ServerAnchor>
  );
}

/** The anchor Link renders on the server for a plain path. */
function ServerAnchor({
  to,
  discover = "render",
  prefetch: _prefetch,
  relative: _relative,
  reloadDocument: _reloadDocument,
  replace: _replace,
  state: _state,
  preventScrollReset: _preventScrollReset,
  viewTransition: _viewTransition,
  onClick: _onClick,
  target,
  ...anchor
}: LinkProps & { to: string }) {
  // In Link's order, so that the markup is the same to the byte.
  return <a {...anchor} href={to} target={target} data-discover={discover === "render" ? "true" : undefined} />;
}

function PlainLink({
  to,
  relative,
  prefetch: _prefetch,
  discover: _discover,
  reloadDocument: _reloadDocument,
  replace: _replace,
  state: _state,
  preventScrollReset: _preventScrollReset,
  viewTransition: _viewTransition,
  ...anchor
}: LinkProps) {
  return <a href={useHref(to, { relative })} {...anchor} />;
}

function PrefetchingLink(props: LinkProps) {
  const [prefetch, setPrefetch] = useState<LinkProps["prefetch"]>("intent");
  useEffect(() => {
    const connection = (navigator as Navigator & { connection?: Connection }).connection;
    if (!prefetchAllowed(connection)) setPrefetch("none");
  }, []);
  return <Link prefetch={prefetch} {...props} />;
}
