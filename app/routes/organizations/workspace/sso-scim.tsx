import { useEffect, useState } from "react";
import { useActionData } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/sso-scim";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { FormErrors } from "~/components/ui/FormErrors";
import { Input } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { useRowForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { organizationPath } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { isAppError } from "~/server/errors.server";
import { getInstance, notFound } from "~/server/i18n.server";
import { organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";
import { pageAction, type PageContext } from "~/server/page-action.server";
import { scimBaseUrl } from "~/server/sso/scim/protocol.server";
import { generateScimToken, listScimTokens, revokeScimToken } from "~/server/sso/scim/tokens.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization", "scim"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization of the URL and its connection `providerId`, for those who manage its SSO
 * (owners and admins); anyone else, and a connection of another organization, find nothing.
 */
async function pageOf({ url, params, context }: Pick<Route.LoaderArgs, "url" | "params" | "context">) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  if (!can(caller, "sso", ["manage"])) notFound(url.pathname);
  const tokens = await listScimTokens(auth, params.providerId, organization.id).catch((error: unknown) =>
    isAppError(error) && error.code === "SCIM_CONNECTION_NOT_FOUND" ? notFound(url.pathname) : Promise.reject(error),
  );
  return { auth, organization, providerId: params.providerId, tokens };
}

/** The SCIM base URL and the connection's tokens: when made, last used, and the first characters of each. */
export async function loader(args: Route.LoaderArgs) {
  const { organization, providerId, tokens } = await pageOf(args);
  const { t } = getInstance(args.context);
  return {
    meta: {
      title: t("scim:meta.title", { name: organization.name }),
      description: t("scim:meta.description", { name: organization.name }),
    },
    providerId,
    baseUrl: scimBaseUrl(),
    tokens: tokens.map((token) => ({
      id: token.id,
      start: token.start,
      createdAt: token.createdAt.toISOString(),
      lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    })),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

const generateSchema = z.object({});
const revokeSchema = z.object({ tokenId: z.string().min(1).max(64) });

type Page = { organization: { id: string; slug: string }; providerId: string };

function here({ page, locale }: PageContext<"required"> & { page: Page }) {
  return localizePath(
    `${organizationPath(page.organization.slug)}/sso/${encodeURIComponent(page.providerId)}/scim`,
    locale,
  );
}

/**
 * Generate (the answer carries the new token, shown once, with no redirect so it is never in
 * a URL) and Revoke (back to the page with a toast). The services check the caller's right.
 */
export const action = pageAction({
  auth: "required",
  prepare: async ({ args: { url, params }, auth }): Promise<Page> => {
    const { organization } = await organizationOfPage(url, auth, params.slug!);
    return { organization, providerId: params.providerId! };
  },
  intents: (intent) => ({
    "generate-scim-token": intent({
      schema: generateSchema,
      rateLimit: "/scim/generate-token",
      extra: () => ({ key: "generate-scim-token" }),
      async run({ auth, meta, page }) {
        const { scimToken } = await generateScimToken(
          auth,
          { providerId: page.providerId, organizationId: page.organization.id },
          meta,
        );
        return { key: "generate-scim-token", scimToken };
      },
    }),
    "revoke-scim-token": intent({
      schema: revokeSchema,
      rateLimit: "/scim/revoke-token",
      extra: (formData) => ({ key: `revoke-${String(formData.get("tokenId"))}` }),
      async run(ctx) {
        await revokeScimToken(ctx.auth, { tokenId: ctx.value.tokenId }, ctx.meta);
        const t = getInstance(ctx.args.context).getFixedT(ctx.locale, "scim");
        return redirectWithToast(
          here(ctx),
          { type: "success", title: t("tokens.revoked") },
          { headers: { "X-Remix-Replace": "true" } },
        );
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function ScimSettings({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("scim");
  return (
    <div className="flex flex-col gap-8">
      <Section id="scim" title={t("title")} description={t("description", { provider: loaderData.providerId })}>
        <div className="flex flex-col gap-4 text-sm">
          <div>
            <label htmlFor="scim-base-url" className="font-medium">
              {t("baseUrl")}
            </label>
            <Input
              id="scim-base-url"
              readOnly
              value={loaderData.baseUrl}
              data-testid="scim-base-url"
              aria-describedby="scim-base-url-hint"
              className="mt-1 font-mono text-xs"
            />
            <p id="scim-base-url-hint" className="mt-1 text-slate-600 dark:text-slate-400">
              {t("baseUrlHint")}
            </p>
          </div>
          <p className="text-slate-600 dark:text-slate-400">{t("rules")}</p>
        </div>
      </Section>
      <GenerateSection />
      <TokensSection tokens={loaderData.tokens} />
    </div>
  );
}

type Generated = { key?: string; scimToken?: string } | undefined;

function GenerateSection() {
  const { t } = useTranslation("scim");
  const { fetcher, errors, pending } = useRowForm("generate-scim-token");
  const actionData = useActionData() as Generated;
  const generated = (fetcher.data as Generated)?.scimToken ?? actionData?.scimToken;
  return (
    <Section id="generate-scim-token" title={t("generate.title")} description={t("generate.description")}>
      <fetcher.Form method="post" className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="generate-scim-token" />
        <FormErrors errors={errors} />
        <div>
          <SubmitButton pending={pending} pendingLabel={t("generate.pending")} className="whitespace-nowrap">
            {t("generate.submit")}
          </SubmitButton>
        </div>
      </fetcher.Form>
      {generated ? <NewToken token={generated} /> : null}
    </Section>
  );
}

/** The token just made: selectable text, a copy button where JavaScript runs, and the warning that it is shown once. */
function NewToken({ token }: { token: string }) {
  const { t } = useTranslation("scim");
  const [copied, setCopied] = useState(false);
  // Shown once the page runs JavaScript with a clipboard: without it the text is selected and copied by hand.
  const [canCopy, setCanCopy] = useState(false);
  useEffect(() => setCanCopy(Boolean(navigator.clipboard)), []);
  return (
    <div
      className="mt-5 rounded-md border border-amber-200 bg-amber-50 p-4 text-sm dark:border-amber-900 dark:bg-amber-950/40"
      data-testid="scim-new-token"
    >
      <label htmlFor="scim-token" className="font-medium">
        {t("generate.yourToken")}
      </label>
      <div className="mt-1 flex flex-wrap gap-2">
        <Input
          id="scim-token"
          readOnly
          value={token}
          data-testid="scim-token"
          aria-describedby="scim-token-hint"
          onFocus={(event) => event.currentTarget.select()}
          className="w-auto min-w-0 flex-1 font-mono text-xs"
        />
        {canCopy ? (
          <button
            type="button"
            onClick={() => void navigator.clipboard.writeText(token).then(() => setCopied(true))}
            className={buttonClass("secondary", "px-3 py-1.5 whitespace-nowrap")}
          >
            {copied ? t("generate.copied") : t("generate.copy")}
          </button>
        ) : null}
      </div>
      <p id="scim-token-hint" className="mt-2 text-amber-900 dark:text-amber-200">
        {t("generate.copyHint")}
      </p>
    </div>
  );
}

function TokensSection({ tokens }: { tokens: LoaderData["tokens"] }) {
  const { t } = useTranslation("scim");
  const locale = useLocale();
  return (
    <Section id="scim-tokens" title={t("tokens.title")} description={t("tokens.description")}>
      {tokens.length ? (
        <ul className="divide-y divide-slate-200 dark:divide-slate-800" data-testid="scim-token-list">
          {tokens.map((token) => (
            // On a phone the token's name takes a line of its own, its dates and button the next.
            <li
              key={token.id}
              data-token={token.start}
              className="flex flex-col gap-3 py-3 text-sm sm:flex-row sm:items-center sm:gap-6"
            >
              <div className="min-w-0 sm:flex-1">
                <span className="block text-xs text-slate-600 dark:text-slate-400">{t("tokens.token")}</span>
                <span className="font-mono whitespace-nowrap">{token.start}…</span>
              </div>
              <div className="flex flex-wrap items-center gap-x-6 gap-y-2">
                <div>
                  <span className="block text-xs text-slate-600 dark:text-slate-400">{t("tokens.created")}</span>
                  <LocalTime iso={token.createdAt} locale={locale} />
                </div>
                <div>
                  <span className="block text-xs text-slate-600 dark:text-slate-400">{t("tokens.lastUsed")}</span>
                  {token.lastUsedAt ? <LocalTime iso={token.lastUsedAt} locale={locale} /> : t("tokens.never")}
                </div>
                <div className="ml-auto">
                  <RevokeButton id={token.id} start={token.start} />
                </div>
              </div>
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600 dark:text-slate-400">{t("tokens.empty")}</p>
      )}
    </Section>
  );
}

function RevokeButton({ id, start }: { id: string; start: string }) {
  const { t } = useTranslation("scim");
  const { fetcher, errors, pending } = useRowForm(`revoke-${id}`);
  return (
    <fetcher.Form method="post" className="flex flex-col items-end gap-1">
      <input type="hidden" name="intent" value="revoke-scim-token" />
      <input type="hidden" name="tokenId" value={id} />
      <SubmitButton
        variant="secondary"
        pending={pending}
        pendingLabel={t("tokens.revokePending")}
        aria-label={t("tokens.revokeLabel", { start })}
        className="px-3 py-1.5 whitespace-nowrap"
      >
        {t("tokens.revoke")}
      </SubmitButton>
      <FormErrors errors={errors} />
    </fetcher.Form>
  );
}
