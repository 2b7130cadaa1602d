import { useEffect, useState } from "react";
import { Link, type LinkProps, useHref } from "react-router";
import { usePageHydrates } from "~/lib/hydration";

type Connection = { effectiveType?: string; saveData?: boolean };

/** Slow or data-saving connections should not spend bandwidth on guesses. */
export function prefetchAllowed(connection: Connection | undefined): boolean {
  return !(connection?.saveData || connection?.effectiveType === "slow-2g");
}

/**
 * A Link that prefetches on intent, except on slow-2g or save-data connections. On a page that
 * does not hydrate it is a plain anchor: nothing would ever run its click or prefetch handlers.
 */
export function AppLink(props: LinkProps) {
  return usePageHydrates() ? <PrefetchingLink {...props} /> : <PlainLink {...props} />;
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
