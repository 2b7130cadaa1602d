import { useContext, useEffect } from "react";
import { I18nContext } from "react-i18next";
import { useTranslation } from "~/lib/translations";
import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  type ShouldRevalidateFunctionArgs,
} from "react-router";
import type { Route } from "./+types/root";
import { withTranslations } from "~/lib/translations";
import "./app.css";
import { Footer } from "~/components/Footer";
import { Navbar } from "~/components/Navbar";
import { NewVersionWatcher } from "~/components/NewVersionWatcher";
import { Toaster } from "~/components/Toaster";
import { splitLocale, type Locale } from "~/i18n/config";
import { usePageHydrates } from "~/lib/hydration";
import { useNonce } from "~/lib/nonce";
import { menuScript } from "~/lib/menus";
import { themeScript } from "~/lib/theme";
import { useLocale, useLocalize, useRootData } from "~/lib/use-root-data";
import { isAdmin } from "~/server/admin/permissions.server";
import { getAuthSession, routeRulesMiddleware, sessionMiddleware } from "~/server/auth/guards.server";
import { sessionSubscriptions } from "~/server/billing/billing.server";
import { originMiddleware } from "~/server/auth/origin.server";
import { currentBuildId } from "~/server/build-info.server";
import { loadEnv } from "~/server/env.server";
import { formBodyMiddleware } from "~/server/forms.server";
import { outageMiddleware } from "~/server/outage.server";
import { getInstance, getLocale, i18nextMiddleware } from "~/server/i18n.server";
import { routePatternMiddleware } from "~/server/log.server";
import { pageUrlMiddleware } from "~/server/page-url.server";
import { getToast } from "~/server/toast.server";

export const middleware: Route.MiddlewareFunction[] = [
  routePatternMiddleware,
  pageUrlMiddleware,
  outageMiddleware,
  originMiddleware,
  i18nextMiddleware,
  formBodyMiddleware,
  sessionMiddleware,
  routeRulesMiddleware,
];

/**
 * Switches the browser's i18next instance to the page's language after a client-side
 * navigation into another one (its namespaces are loaded first, by `withTranslations`). It
 * reads the instance from the context, not through react-i18next's useTranslation as
 * remix-i18next's useChangeLanguage does: that hook and the shim it brings would be a few KB
 * of every page's JavaScript for one effect (decision 0031). The server's instances never
 * change language, and effects do not run there.
 */
function useBrowserLanguage(locale: string) {
  const { i18n } = useContext(I18nContext);
  useEffect(() => {
    if (i18n.language !== locale) void i18n.changeLanguage(locale);
  }, [locale, i18n]);
}

/** Every page uses the shared strings; each route adds its own namespaces (remix-i18next's convention). */
export const handle = { i18n: ["common"] };

/** Runs when the root revalidates: on a change of language, which it switches to. */
export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const locale = getLocale(context) as Locale;
  const auth = getAuthSession(context);
  const user = auth?.user ?? null;
  // The user menu's badge: the plan of the user's own subscription, else of the active organization's.
  const plan = auth ? ((await sessionSubscriptions(auth))[0]?.plan ?? null) : null;
  const { toast, headers } = await getToast(request);
  return data(
    {
      locale,
      brand: getInstance(context).t("brand"),
      baseUrl: loadEnv().BASE_URL,
      buildId: currentBuildId(),
      user: user && {
        name: user.name,
        email: user.email,
        image: user.image,
        isAdmin: isAdmin(user),
        plan,
        impersonated: Boolean(auth?.session.impersonatedBy),
      },
      toast,
    },
    { headers: headers ?? undefined },
  );
}

/** The root data only changes with the language, the signed-in user (after actions) or a toast. */
export function shouldRevalidate({ currentUrl, nextUrl, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return splitLocale(currentUrl.pathname).locale !== splitLocale(nextUrl.pathname).locale || defaultShouldRevalidate;
}

export function Layout({ children }: { children: React.ReactNode }) {
  const rootData = useRootData();
  const nonce = useNonce();
  const locale = useLocale();
  // The i18next instance comes from entry.server.tsx / entry.client.tsx; a client-side
  // navigation into another language switches it (loading that language's namespaces first).
  useBrowserLanguage(locale);
  const hydrating = usePageHydrates();
  return (
    <html lang={locale} dir="ltr" data-static={hydrating ? undefined : ""} suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: `${themeScript};${menuScript}` }} />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen">
        {children}
        <Toaster serverToast={rootData?.toast ?? null} />
        <NewVersionWatcher buildId={rootData?.buildId ?? null} />
        {hydrating ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : null}
      </body>
    </html>
  );
}

export default function App() {
  // Marks the document once React has taken over (scripts and tests can wait for it).
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

type ErrorData = { message?: string; path?: string; fatal?: boolean } | null;

function describeError(error: unknown): { status: number; message: string; path: string | null; fatal: boolean } {
  if (isRouteErrorResponse(error)) {
    const body = error.data as ErrorData;
    return {
      status: error.status,
      message: body?.message ?? (error.status === 404 ? "Page Not Found" : error.statusText || "Internal Server Error"),
      path: body?.path ?? null,
      fatal: body?.fatal ?? false,
    };
  }
  return { status: 500, message: "Internal Server Error", path: null, fatal: false };
}

/** Error pages keep the site's navigation and footer, and speak the page's language. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const { t } = useTranslation();
  const localize = useLocalize();
  const described = describeError(error);
  const { status, path } = described;
  // 503: the database (or another service the page needs) is down for now; nothing is broken.
  const unavailable = status === 503;
  const message =
    status === 404 && path !== null
      ? t(described.fatal ? "error.notFoundFatal" : "error.notFoundPath", {
          path,
          interpolation: { escapeValue: false },
        })
      : unavailable
        ? t("error.unavailableTitle")
        : status >= 500
          ? t("error.serverTitle")
          : described.message;
  const title = status === 404 ? t("error.notFoundTitle") : unavailable || status >= 500 ? message : described.message;

  return (
    <div className="flex min-h-screen flex-col">
      <title>{`${status} - ${title}`}</title>
      <Navbar />
      <main className="mx-auto flex w-full max-w-xl flex-1 flex-col items-center justify-center px-4 py-16 text-center">
        <p className="text-6xl font-bold text-primary-600" data-testid="error-status">
          {status}
        </p>
        <h1 className="mt-4 text-2xl font-semibold break-words" data-testid="error-message">
          {message}
        </h1>
        <p className="mt-3 text-slate-600 dark:text-slate-400">
          {status === 404
            ? t("error.notFoundDescription")
            : unavailable
              ? t("error.unavailableDescription")
              : status >= 400 && status < 500
                ? t("error.badRequestDescription")
                : t("error.serverDescription")}
        </p>
        <a
          href={localize("/")}
          className="mt-8 rounded-md bg-primary-700 px-4 py-2 text-sm font-medium text-white hover:bg-primary-800"
        >
          {t("error.backHome")}
        </a>
      </main>
      <Footer />
    </div>
  );
}
