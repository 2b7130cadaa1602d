const KEY = "chunk-reload-at";

export function isChunkLoadError(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Failed to fetch dynamically imported module|Importing a module script failed|error loading dynamically imported module/i.test(message);
}

/**
 * Reloads the page after a failed lazy chunk load, but only once a minute, so a chunk that is
 * really gone cannot trap the browser in a reload loop.
 */
export function reloadOnceAfterChunkError(): boolean {
  const last = Number(sessionStorage.getItem(KEY) ?? 0);
  if (Date.now() - last < 60_000) return false;
  sessionStorage.setItem(KEY, String(Date.now()));
  window.location.reload();
  return true;
}
