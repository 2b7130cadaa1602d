/**
 * What the API key pages need around the key verbs: the rows they list, the permissions the
 * caller may give, the organization of the URL for a caller who manages its keys (a 404 to
 * everyone else), and the one action table both pages share.
 */
import { data, type RouterContextProvider } from "react-router";
import {
  createKeySchema,
  deleteKeySchema,
  grantsFromValues,
  RATE_WINDOWS,
  REFILL_PERIODS,
  renameKeySchema,
  toggleKeySchema,
  valuesOfGrants,
} from "~/lib/api-key-forms";
import type { Locale } from "~/i18n/config";
import type { ApiKeyRecord } from "~/server/auth/api-keys.server";
import type { AuthSession } from "~/server/auth/session.server";
import { getInstance, getLocale, notFound } from "~/server/i18n.server";
import type { IntentOf } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import {
  createApiKey,
  deleteApiKey,
  getApiKey,
  grantsHeld,
  KEY_PERMISSIONS,
  listApiKeys,
  updateApiKey,
} from "./api-keys.server";
import { organizationOfPage } from "./pages.server";
import { can } from "./permissions.server";

/** The API key strings in the page's language (toasts, titles). */
export function apiKeysT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(getLocale(context), "apiKeys");
}

/** The organization of the URL and the caller's membership, when the caller manages its keys. */
export async function keysOfOrganizationPage(url: URL, auth: AuthSession, slug: string) {
  const page = await organizationOfPage(url, auth, slug);
  if (!can(page.caller, "apiKey", ["manage"])) notFound(url.pathname);
  return page;
}

/** A key as the list shows it: never the key, only its first characters. */
function keyRow(key: ApiKeyRecord) {
  const expired = key.expiresAt !== null && key.expiresAt.getTime() <= Date.now();
  return {
    id: key.id,
    name: key.name ?? "",
    start: key.start ?? "",
    createdAt: key.createdAt.toISOString(),
    lastUsed: key.lastRequest?.toISOString() ?? null,
    expiresAt: key.expiresAt?.toISOString() ?? null,
    enabled: key.enabled,
    status: !key.enabled ? "disabled" : expired ? "expired" : "active",
  } as const;
}

/** The keys a page lists, and the permissions its create form offers (all ticked by default). */
export async function keysPage(auth: AuthSession, organizationId: string | null) {
  const { apiKeys } = await listApiKeys(auth, organizationId ? { organizationId, configId: "org" } : {});
  const held = (await grantsHeld(auth.user.id, organizationId)) as Record<string, readonly string[]>;
  const keyable = KEY_PERMISSIONS as Record<string, readonly string[]>;
  const grantable = valuesOfGrants(keyable).filter((value) => {
    const [resource = "", action = ""] = value.split(":");
    return held[resource]?.includes(action);
  });
  return { keys: apiKeys.map(keyRow), grantable };
}

const DAY = 24 * 60 * 60;

/**
 * The forms of a key page: create (answered in the action's reply, the only place the key is
 * ever shown: never a redirect, a URL or a cookie), rename, enable/disable and delete (each
 * back to `here` with a toast). `organizationId` is null on the personal page.
 */
export function keyIntents<P>(
  intent: IntentOf<"required", P>,
  where: (page: P, locale: Locale) => { organizationId: string | null; here: string },
) {
  const done = (context: Readonly<RouterContextProvider>, here: string, key: string, name: string) =>
    redirectWithToast(
      here,
      { type: "success", title: apiKeysT(context)(key, { name }) },
      { headers: { "X-Remix-Replace": "true" } },
    );
  return {
    "create-key": intent({
      schema: createKeySchema,
      rateLimit: "/api-key/create",
      extra: () => ({ key: "create-key" }),
      async run({ auth, meta, value, page, locale }) {
        const { organizationId } = where(page, locale);
        const refill = REFILL_PERIODS[value.refill];
        const created = await createApiKey(
          auth,
          {
            name: value.name,
            expiresIn: value.expiry === "none" ? null : Number(value.expiry) * DAY,
            ...(organizationId ? { configId: "org" as const, organizationId } : {}),
          },
          meta,
          {
            permissions: grantsFromValues(value.permission),
            ...(value.budget ? { remaining: value.budget } : {}),
            ...(value.budget && refill ? { refillAmount: value.budget, refillInterval: refill } : {}),
            rateLimit: value.rateLimit ? { max: value.rateLimit, timeWindow: RATE_WINDOWS[value.rateWindow] } : null,
          },
        );
        return data({ key: "create-key", created: { id: created.id, name: created.name ?? "", key: created.key } });
      },
    }),
    "rename-key": intent({
      schema: renameKeySchema,
      rateLimit: "/api-key/update",
      refusal: "toast",
      async run({ auth, meta, value, page, args, locale }) {
        const key = await updateApiKey(auth, { keyId: value.keyId, name: value.name }, meta);
        return done(args.context, where(page, locale).here, "renamed", key.name ?? "");
      },
    }),
    "toggle-key": intent({
      schema: toggleKeySchema,
      rateLimit: "/api-key/update",
      refusal: "toast",
      async run({ auth, meta, value, page, args, locale }) {
        const enabled = value.enabled === "true";
        const key = await updateApiKey(auth, { keyId: value.keyId, enabled }, meta);
        return done(args.context, where(page, locale).here, enabled ? "enabled" : "disabled", key.name ?? "");
      },
    }),
    "delete-key": intent({
      schema: deleteKeySchema,
      rateLimit: "/api-key/delete",
      refusal: "toast",
      async run({ auth, meta, value, page, args, locale }) {
        const { name } = await getApiKey(auth, { keyId: value.keyId });
        await deleteApiKey(auth, { keyId: value.keyId }, meta);
        return done(args.context, where(page, locale).here, "deleted", name ?? "");
      },
    }),
  };
}

export type KeysPage = Awaited<ReturnType<typeof keysPage>>;
