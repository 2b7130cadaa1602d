import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";
import { withDataRetry } from "~/lib/fetch-retry";

// React Router's client-side data requests go through window.fetch.
window.fetch = withDataRetry(window.fetch.bind(window));

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <HydratedRouter />
    </StrictMode>,
  );
});
