import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { I18nextProvider } from "react-i18next";
import { HydratedRouter } from "react-router/dom";
import { withDataRetry } from "~/lib/fetch-retry";
import { initI18n } from "~/lib/i18n.client";

// React Router's client-side data requests go through window.fetch.
window.fetch = withDataRetry(window.fetch.bind(window));

void initI18n().then((i18n) => {
  startTransition(() => {
    hydrateRoot(
      document,
      <I18nextProvider i18n={i18n}>
        <StrictMode>
          <HydratedRouter />
        </StrictMode>
      </I18nextProvider>,
    );
  });
});
