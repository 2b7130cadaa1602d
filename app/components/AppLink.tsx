import { useEffect, useState } from "react";
import { Link, type LinkProps } from "react-router";

type Connection = { effectiveType?: string; saveData?: boolean };

/** Slow or data-saving connections should not spend bandwidth on guesses. */
export function prefetchAllowed(connection: Connection | undefined): boolean {
  return !(connection?.saveData || connection?.effectiveType === "slow-2g");
}

/** A Link that prefetches on intent, except on slow-2g or save-data connections. */
export function AppLink(props: LinkProps) {
  const [prefetch, setPrefetch] = useState<LinkProps["prefetch"]>("intent");
  useEffect(() => {
    const connection = (navigator as Navigator & { connection?: Connection }).connection;
    if (!prefetchAllowed(connection)) setPrefetch("none");
  }, []);
  return <Link prefetch={prefetch} {...props} />;
}
