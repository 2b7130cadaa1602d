import { data } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/database";
import { CONFIRMED_FIELD, ConfirmRun, RunRefusal } from "~/components/reports/ConfirmRun";
import { LocalTime } from "~/components/ui/LocalTime";
import { Section } from "~/components/ui/Section";
import { Table } from "~/components/ui/Table";
import { numberFormat } from "~/lib/intl";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";
import { databaseStats, quickCheck, type DatabaseStats } from "~/server/admin/database.server";
import { databaseProvider } from "~/server/db.server";
import { requireAdminUser } from "~/server/admin/pages.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["reports"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ context }: Route.LoaderArgs) {
  requireAdminUser(context);
  return { meta: pageMeta(context, "adminDatabase"), stats: await databaseStats() };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** The check's question adds the confirmation (ConfirmRun); nothing else is sent. */
const checkSchema = z.object({ [CONFIRMED_FIELD]: z.literal("yes").optional() });

/**
 * The page's one button: SQLite's quick integrity check, once confirmed; the result shows on
 * the page it returns. A check that was not confirmed, or asked of a database that has none
 * (PostgreSQL), is refused with a 400 and the reason on the page: nothing ran.
 */
export const action = pageAction({
  auth: "required",
  prepare: async ({ args }) => {
    requireAdminUser(args.context);
  },
  intents: (intent) => ({
    check: intent({
      schema: checkSchema,
      rateLimit: "/admin/maintenance/database",
      async run({ auth, meta, value }) {
        if (databaseProvider() !== "sqlite") return data({ refusal: "unsupported" as const }, { status: 400 });
        if (value.confirmed !== "yes") return data({ refusal: "unconfirmed" as const }, { status: 400 });
        return { check: await quickCheck(auth, meta) };
      },
    }),
  }),
});

/** Bytes in the reader's language, in binary units (KiB, MiB, …) as file managers show them. */
function useBytes() {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  return (bytes: number | null) => {
    if (bytes === null) return "—";
    const units = ["B", "KiB", "MiB", "GiB", "TiB"] as const;
    const power = bytes > 0 ? Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024))) : 0;
    const value = numberFormat(locale, { maximumFractionDigits: power ? 1 : 0 }).format(bytes / 1024 ** power);
    return t(`database.units.${units[power]}`, { value });
  };
}

export default function Database({ loaderData, actionData }: Route.ComponentProps) {
  const { stats } = loaderData;
  const { t } = useTranslation("reports");
  const refusal = actionData && "refusal" in actionData ? actionData.refusal : null;
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
      </div>
      {stats.provider === "sqlite" ? (
        <>
          <SqliteFigures stats={stats} />
          <IntegrityCheck
            check={actionData && "check" in actionData ? actionData.check : null}
            unconfirmed={refusal === "unconfirmed"}
          />
        </>
      ) : (
        <>
          {refusal === "unsupported" ? <RunRefusal>{t("database.refusals.unsupported")}</RunRefusal> : null}
          <PostgresFigures stats={stats} />
        </>
      )}
      <Tables stats={stats} />
    </div>
  );
}

function Figures({ figures }: { figures: { key: string; value: string; raw: string | number | null }[] }) {
  const { t } = useTranslation("reports");
  return (
    <dl className="grid gap-x-6 gap-y-4 text-sm sm:grid-cols-2 lg:grid-cols-3">
      {figures.map((figure) => (
        <div key={figure.key}>
          <dt className="text-slate-600 dark:text-slate-400">{t(`database.figures.${figure.key}`)}</dt>
          <dd className="mt-0.5 font-medium break-all" data-figure={figure.key} data-value={figure.raw ?? ""}>
            {figure.value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function SqliteFigures({ stats }: { stats: Extract<DatabaseStats, { provider: "sqlite" }> }) {
  const { t } = useTranslation("reports");
  const number = numberFormat(useLocale());
  const bytes = useBytes();
  return (
    <Section
      id="sqlite"
      title={t("database.sqliteTitle", { version: stats.version })}
      description={t("database.sqliteDescription")}
    >
      <Figures
        figures={[
          { key: "file", value: stats.file, raw: stats.file },
          { key: "fileSize", value: bytes(stats.fileBytes), raw: stats.fileBytes },
          { key: "walSize", value: bytes(stats.walBytes), raw: stats.walBytes },
          { key: "journalMode", value: stats.journalMode, raw: stats.journalMode },
          { key: "pageSize", value: bytes(stats.pageSize), raw: stats.pageSize },
          { key: "pageCount", value: number.format(stats.pageCount), raw: stats.pageCount },
          { key: "freelistCount", value: number.format(stats.freelistCount), raw: stats.freelistCount },
          {
            key: "freeSpace",
            value: bytes(stats.freelistCount * stats.pageSize),
            raw: stats.freelistCount * stats.pageSize,
          },
        ]}
      />
    </Section>
  );
}

function PostgresFigures({ stats }: { stats: Extract<DatabaseStats, { provider: "postgresql" }> }) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  const number = numberFormat(locale);
  const percent = numberFormat(locale, { style: "percent", maximumFractionDigits: 2 });
  const bytes = useBytes();
  return (
    <Section
      id="postgresql"
      title={t("database.postgresTitle", { version: stats.version })}
      description={t("database.postgresDescription", { database: stats.database })}
    >
      <Figures
        figures={[
          { key: "databaseSize", value: bytes(stats.databaseBytes), raw: stats.databaseBytes },
          { key: "connections", value: number.format(stats.connections), raw: stats.connections },
          { key: "commits", value: number.format(stats.commits), raw: stats.commits },
          { key: "rollbacks", value: number.format(stats.rollbacks), raw: stats.rollbacks },
          { key: "blocksRead", value: number.format(stats.blocksRead), raw: stats.blocksRead },
          { key: "blocksHit", value: number.format(stats.blocksHit), raw: stats.blocksHit },
          {
            key: "cacheHitRatio",
            value: stats.cacheHitRatio === null ? "—" : percent.format(stats.cacheHitRatio),
            raw: stats.cacheHitRatio,
          },
          { key: "deadlocks", value: number.format(stats.deadlocks), raw: stats.deadlocks },
        ]}
      />
    </Section>
  );
}

function IntegrityCheck({
  check,
  unconfirmed,
}: {
  check: { ok: boolean; messages: string[]; checkedAt: string } | null;
  unconfirmed: boolean;
}) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  return (
    <Section id="integrity" title={t("database.integrityTitle")} description={t("database.integrityDescription")}>
      <div className="flex flex-col gap-3">
        {unconfirmed ? <RunRefusal>{t("database.refusals.unconfirmed")}</RunRefusal> : null}
        <div className="flex">
          <ConfirmRun
            name="check"
            variant="secondary"
            label={t("database.runCheck")}
            asking={unconfirmed}
            question={t("database.confirmQuestion")}
            detail={t("database.confirmDetail")}
            confirmLabel={t("database.confirmRun")}
            cancelLabel={t("database.cancel")}
            pendingLabel={t("database.checking")}
            fields={{ intent: "check" }}
          />
        </div>
      </div>
      {check ? (
        <div
          role="status"
          data-integrity={check.ok ? "ok" : "problems"}
          className={`mt-4 rounded-md px-3 py-2 text-sm ${check.ok ? "bg-primary-50 text-primary-900 dark:bg-primary-950/40 dark:text-primary-200" : "bg-red-50 text-red-900 dark:bg-red-950/40 dark:text-red-200"}`}
        >
          <p className="font-medium">
            {check.ok ? t("database.checkOk") : t("database.checkProblems", { count: check.messages.length })}{" "}
            <span className="font-normal">
              (<LocalTime iso={check.checkedAt} locale={locale} />)
            </span>
          </p>
          {check.ok ? null : (
            <ul className="mt-2 list-disc pl-5 font-mono text-xs">
              {check.messages.map((message, i) => (
                <li key={i}>{message}</li>
              ))}
            </ul>
          )}
        </div>
      ) : null}
    </Section>
  );
}

function Tables({ stats }: { stats: DatabaseStats }) {
  const { t } = useTranslation("reports");
  const number = numberFormat(useLocale());
  const bytes = useBytes();
  const sized = stats.provider === "postgresql";
  return (
    <Section
      id="tables"
      title={t("database.tablesTitle")}
      description={sized ? t("database.tablesPostgres") : t("database.tablesSqlite")}
    >
      <Table
        data-testid="table-list"
        head={
          <>
            <th scope="col" className="py-2 pr-4 font-medium">
              {t("database.table")}
            </th>
            <th scope="col" className="py-2 pr-4 text-right font-medium">
              {sized ? t("database.rowsEstimate") : t("database.rows")}
            </th>
            {sized ? (
              <th scope="col" className="py-2 text-right font-medium">
                {t("database.size")}
              </th>
            ) : null}
          </>
        }
      >
        {stats.tables.map((table) => (
          <tr key={table.name} data-table={table.name}>
            <td className="py-2 pr-4 font-mono text-xs">{table.name}</td>
            <td className="py-2 pr-4 text-right tabular-nums" data-rows={table.rows}>
              {number.format(table.rows)}
            </td>
            {sized ? (
              <td className="py-2 text-right tabular-nums" data-bytes={table.bytes ?? ""}>
                {bytes(table.bytes)}
              </td>
            ) : null}
          </tr>
        ))}
      </Table>
    </Section>
  );
}
