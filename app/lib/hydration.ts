/**
 * A page opts out of hydration with `handle.hydrate = false` (decision 0020): its document
 * carries no scripts but the inline theme script, and everything on it works as plain HTML.
 * Client-side navigations still reach it: only its first load skips React.
 */
export function hydrates(handles: readonly unknown[]): boolean {
  return handles.every((handle) => (handle as { hydrate?: boolean } | undefined)?.hydrate !== false);
}
