import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";
import { reloadOnceAfterChunkError } from "~/lib/chunk-reload";
import { withDataRetry } from "~/lib/fetch-retry";

// React Router's client-side data requests go through window.fetch.
window.fetch = withDataRetry(window.fetch.bind(window));

// A deploy removed the chunk this page wanted: load the new build.
window.addEventListener("vite:preloadError", (event) => {
  event.preventDefault();
  reloadOnceAfterChunkError();
});

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <HydratedRouter />
    </StrictMode>,
  );
});
