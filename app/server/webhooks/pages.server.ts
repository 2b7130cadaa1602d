/**
 * What the webhook pages need around the endpoint verbs: the organization of the URL for a
 * caller who manages its webhooks (a 404 to everyone else, as for any section they have no tab
 * for), the endpoint of the URL in it, and the page strings.
 */
import type { RouterContextProvider } from "react-router";
import type { AuthSession } from "~/server/auth/session.server";
import { isAppError } from "~/server/errors.server";
import { getInstance, getLocale, notFound } from "~/server/i18n.server";
import { organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";
import { getEndpoint } from "./endpoints.server";

/** The webhook strings in the page's language (toasts, titles). */
export function webhooksT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(getLocale(context), "webhooks");
}

/** The organization of the URL and the caller's membership, when the caller manages its webhooks. */
export async function webhooksOfPage(url: URL, auth: AuthSession, slug: string) {
  const page = await organizationOfPage(url, auth, slug);
  if (!can(page.caller, "webhook", ["manage"])) notFound(url.pathname);
  return page;
}

/** The endpoint `endpointId` of the URL's organization with its latest deliveries (a 404 for another organization's). */
export async function endpointOfPage(url: URL, auth: AuthSession, slug: string, endpointId: string) {
  const page = await webhooksOfPage(url, auth, slug);
  const endpoint = await getEndpoint(auth, endpointId).catch((error: unknown) =>
    isAppError(error) && error.code === "WEBHOOK_NOT_FOUND" ? notFound(url.pathname) : Promise.reject(error),
  );
  if (endpoint.organizationId !== page.organization.id) notFound(url.pathname);
  return { ...page, endpoint };
}
