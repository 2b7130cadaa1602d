import { createContext, useContext } from "react";

/**
 * A page opts out of hydration with `handle.hydrate = false` (decision 0020): its document
 * carries no scripts but the inline theme script, and everything on it works as plain HTML.
 * Client-side navigations still reach it: only its first load skips React.
 */
export function hydrates(handles: readonly unknown[]): boolean {
  return handles.every((handle) => (handle as { hydrate?: boolean } | undefined)?.hydrate !== false);
}

/**
 * Whether the page being rendered will hydrate. entry.server.tsx decides it once from the
 * matched routes: a page that will not is plain HTML (root.tsx leaves its scripts out) and its
 * links need none of React Router's navigation and prefetching. In the browser React runs,
 * whatever the page, so the default holds there.
 */
const HydrationContext = createContext(true);
export const HydrationProvider = HydrationContext.Provider;
export const usePageHydrates = () => useContext(HydrationContext);
