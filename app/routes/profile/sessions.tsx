import { useFetcher } from "react-router";
import type { Route } from "./+types/sessions";
import { Icon } from "~/components/Icon";
import { SettingsPage } from "~/components/settings/SettingsPage";
import { SubmitButton } from "~/components/ui/Button";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { revokeOtherSessionsSchema, revokeSessionSchema } from "~/lib/auth-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { deviceName } from "~/lib/user-agent";
import { useLocale } from "~/lib/use-root-data";
import { listUserSessions, revokeOtherUserSessions, revokeUserSession } from "~/server/auth/account-management.server";
import { requireAuthSession } from "~/server/auth/guards.server";
import { sectionForm, settingsDone, settingsHere } from "~/server/auth/settings.server";
import { authT } from "~/server/forms.server";
import { pageAction, type PageContext } from "~/server/page-action.server";
import { settingsMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const sessions = await listUserSessions(auth);
  return {
    meta: settingsMeta(context, "sessions"),
    sessions: sessions.map((session) => ({
      // The stored hash: an opaque id that can only revoke the caller's own session.
      token: session.token,
      current: session.id === auth.session.id,
      userAgent: session.userAgent,
      ipAddress: session.ipAddress,
      lastActive: session.updatedAt.toISOString(),
    })),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

async function prepare({ args, locale }: PageContext<"required">) {
  return { t: authT(args.context), here: settingsHere("sessions", locale) };
}

export const action = pageAction({
  auth: "required",
  prepare,
  intents: (intent) => ({
    "revoke-session": intent({
      ...sectionForm("revoke-session"),
      schema: revokeSessionSchema,
      rateLimit: "/revoke-session",
      async run({ auth, meta, value: { token }, page: { t, here } }) {
        const result = await revokeUserSession(auth, { token }, meta);
        return settingsDone(here, t("profile.sessions.revoked"), undefined, result.setCookies);
      },
    }),
    "revoke-other-sessions": intent({
      ...sectionForm("revoke-other-sessions"),
      schema: revokeOtherSessionsSchema,
      rateLimit: "/revoke-other-sessions",
      async run({ auth, meta, page: { t, here } }) {
        await revokeOtherUserSessions(auth, meta);
        return settingsDone(here, t("profile.sessions.revokedOthers"));
      },
    }),
  }),
});

type ActionIntent = (typeof action.intents)[number];
type SessionRow = Route.ComponentProps["loaderData"]["sessions"][number];

function IntentInput({ intent }: { intent: ActionIntent }) {
  return <input type="hidden" name="intent" value={intent} />;
}

export default function SessionsSettings({ loaderData }: Route.ComponentProps) {
  return (
    <SettingsPage wide>
      <SessionsSection sessions={loaderData.sessions} />
    </SettingsPage>
  );
}

/** A column's name: the table's header on a wide screen, a label above the value on a phone. */
const cellLabel = "block text-xs text-slate-600 sm:hidden dark:text-slate-400";

/**
 * The signed-in devices as a table whose columns line up on a wide screen; on a phone each
 * row is a stacked card (the header row is hidden, every value carries its own label).
 */
function SessionsSection({ sessions }: { sessions: SessionRow[] }) {
  const { t } = useTranslation("auth");
  const locale = useLocale();
  const others = sessions.filter((session) => !session.current);
  const revokeOthers = useFetcher<typeof action>({ key: "revoke-other-sessions" });
  const head = "px-3 py-2 font-medium first:pl-0 last:pr-0";
  return (
    <Section id="sessions" title={t("profile.sessions.title")} description={t("profile.sessions.description")}>
      <table className="block w-full text-left text-sm sm:table sm:table-fixed" data-testid="session-table">
        <thead className="hidden text-xs text-slate-600 sm:table-header-group dark:text-slate-400">
          <tr className="border-b border-slate-200 dark:border-slate-800">
            <th scope="col" className={`${head} sm:w-[40%]`}>
              {t("profile.sessions.device")}
            </th>
            <th scope="col" className={`${head} sm:w-[22%]`}>
              {t("profile.sessions.ip")}
            </th>
            <th scope="col" className={`${head} sm:w-[24%]`}>
              {t("profile.sessions.lastActive")}
            </th>
            <th scope="col" className={head}>
              <span className="sr-only">{t("profile.sessions.actions")}</span>
            </th>
          </tr>
        </thead>
        <tbody
          className="block divide-y divide-slate-200 sm:table-row-group dark:divide-slate-800"
          data-testid="session-list"
        >
          {sessions.map((session) => (
            <SessionRowView key={session.token} session={session} locale={locale} />
          ))}
        </tbody>
      </table>
      <div className="mt-4">
        {others.length ? (
          <revokeOthers.Form method="post">
            <IntentInput intent="revoke-other-sessions" />
            <SubmitButton
              variant="secondary"
              className="whitespace-nowrap"
              pending={revokeOthers.state !== "idle"}
              pendingLabel={t("profile.sessions.revokeOthersPending")}
            >
              {t("profile.sessions.revokeOthers")}
            </SubmitButton>
          </revokeOthers.Form>
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("profile.sessions.onlyThis")}</p>
        )}
      </div>
    </Section>
  );
}

function SessionRowView({ session, locale }: { session: SessionRow; locale: string }) {
  const { t } = useTranslation("auth");
  const { t: tc } = useTranslation();
  const device = deviceName(session.userAgent, tc);
  const cell = "block py-1 sm:table-cell sm:px-3 sm:py-3 sm:align-middle sm:first:pl-0 sm:last:pr-0";
  return (
    <tr data-current={session.current || undefined} className="relative block py-3 sm:table-row sm:py-0">
      <td className={cell}>
        <span className="flex min-w-0 items-center gap-3">
          <Icon name="monitor" className="size-5 shrink-0 text-slate-400" />
          <span className="min-w-0 flex-1">
            <span className={cellLabel}>{t("profile.sessions.device")}</span>
            <span className="flex min-w-0 items-center gap-2 font-medium" data-testid="session-device">
              <span className="truncate">{device}</span>
              {session.current ? (
                <span className="shrink-0 rounded-full bg-primary-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-primary-800 dark:bg-primary-900/50 dark:text-primary-200">
                  {t("profile.sessions.current")}
                </span>
              ) : null}
            </span>
          </span>
        </span>
      </td>
      <td className={`${cell} pl-8 sm:pl-3`}>
        <span className={cellLabel}>{t("profile.sessions.ip")}</span>
        <span className="block truncate text-slate-700 dark:text-slate-300" data-testid="session-ip">
          {session.ipAddress || t("profile.sessions.unknownIp")}
        </span>
      </td>
      <td className={`${cell} pl-8 sm:pl-3`}>
        <span className={cellLabel}>{t("profile.sessions.lastActive")}</span>
        <span className="text-slate-700 dark:text-slate-300">
          <LocalTime iso={session.lastActive} locale={locale} />
        </span>
      </td>
      <td className={`${cell} pl-8 sm:pl-3 sm:text-right`}>
        {session.current ? null : <RevokeSessionButton token={session.token} device={device} />}
      </td>
    </tr>
  );
}

function RevokeSessionButton({ token, device }: { token: string; device: string }) {
  const { t } = useTranslation("auth");
  const fetcher = useFetcher<typeof action>({ key: `revoke-session-${token}` });
  return (
    <fetcher.Form method="post">
      <IntentInput intent="revoke-session" />
      <input type="hidden" name="token" value={token} />
      <SubmitButton
        variant="ghost"
        className="-ml-3 px-3 py-1.5 whitespace-nowrap sm:ml-0"
        aria-label={t("profile.sessions.revokeLabel", { device })}
        pending={fetcher.state !== "idle"}
      >
        {t("profile.sessions.revoke")}
      </SubmitButton>
    </fetcher.Form>
  );
}
