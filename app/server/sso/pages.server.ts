/**
 * What the organization's single sign-on pages need around the connection verbs: the
 * organization of the URL for a caller who manages its SSO (a 404 to everyone else, as for
 * any section they have no tab for), the connection of the URL in it, the addresses the
 * identity provider is given, and the page strings.
 */
import type { RouterContextProvider } from "react-router";
import type { AuthSession } from "~/server/auth/session.server";
import { prisma } from "~/server/db.server";
import { AppError, isAppError } from "~/server/errors.server";
import { getInstance, getLocale, notFound } from "~/server/i18n.server";
import { organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";
import { loadProvider, oidcRedirectUri, samlAcsUrl, samlMetadataUrl, spEntityId } from "./config.server";
import { getProvider } from "./connections.server";

/** The single sign-on strings in the page's language (toasts, titles). */
export function ssoT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(getLocale(context), "sso");
}

/** The organization of the URL and the caller's membership, when the caller manages its SSO. */
export async function ssoOfPage(url: URL, auth: AuthSession, slug: string) {
  const page = await organizationOfPage(url, auth, slug);
  if (!can(page.caller, "sso", ["manage"])) notFound(url.pathname);
  return page;
}

/** The connection `providerId` of the URL's organization (a 404 for another organization's), without secrets. */
export async function providerOfPage(url: URL, auth: AuthSession, slug: string, providerId: string) {
  const page = await ssoOfPage(url, auth, slug);
  const row = await prisma.ssoProvider.findUnique({ where: { providerId }, select: { organizationId: true } });
  if (row?.organizationId !== page.organization.id) notFound(url.pathname);
  return { ...page, provider: await getProvider(auth, providerId) };
}

/** What to enter at the identity provider for the connection `providerId`. */
export async function setupValues(providerId: string) {
  const loaded = await loadProvider(providerId);
  return {
    redirectUri: oidcRedirectUri(providerId),
    acsUrl: samlAcsUrl(providerId),
    spEntityId: spEntityId(loaded ?? { providerId }),
    metadataUrl: samlMetadataUrl(providerId),
  };
}

/**
 * `call`, with its answers from an identity provider or DNS that better-auth gives as 502
 * (discovery timed out, the TXT record not found) answered 422 on a page: a 5xx page reads
 * as the site failing, and proxies in front of it may replace its body.
 */
export async function asPageRefusal<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isAppError(error) && error.status >= 500 && error.code) throw new AppError(error.code, error.message, 422);
    throw error;
  }
}
