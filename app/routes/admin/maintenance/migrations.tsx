import { useEffect } from "react";
import { data, useRevalidator } from "react-router";
import { z } from "zod";
import type { Route } from "./+types/migrations";
import { CONFIRMED_FIELD, ConfirmRun, RunRefusal } from "~/components/reports/ConfirmRun";
import { StackedTable, stackedCell, stackedRow } from "~/components/reports/StackedTable";
import { Section } from "~/components/ui/Section";
import { LocalTime } from "~/components/ui/LocalTime";
import { localizePath } from "~/i18n/config";
import { numberFormat } from "~/lib/intl";
import { dataOperations } from "~/lib/reports";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";
import {
  dataOperationRuns,
  schemaMigrations,
  startDataOperation,
  type NotStarted,
} from "~/server/admin/migrations.server";
import { requireAdminAction, requireAdminUser } from "~/server/admin/pages.server";
import { getInstance } from "~/server/i18n.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["reports"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** How often the page looks again while a data operation runs. */
const POLL_SECONDS = 2;

export async function loader({ context }: Route.LoaderArgs) {
  requireAdminUser(context);
  const [schema, operations] = await Promise.all([schemaMigrations(), dataOperationRuns()]);
  return { meta: pageMeta(context, "adminMigrations"), schema, operations };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** A start carries the confirmation its question adds (ConfirmRun). */
const startSchema = z.object({ operation: z.enum(dataOperations), [CONFIRMED_FIELD]: z.literal("yes").optional() });

/**
 * Starts a data operation once confirmed, then back here (where its progress shows) with a
 * toast. A start that was not confirmed, or that could not start (one is running already, or
 * the operation cannot run on this deployment), starts nothing: the page answers with the
 * reason next to the operation, with a 400 or 409, never with a toast saying it started.
 */
export const action = pageAction({
  auth: "required",
  prepare: requireAdminAction,
  intents: (intent) => ({
    start: intent({
      schema: startSchema,
      rateLimit: "/admin/maintenance/migrations",
      async run({ args, auth, meta, locale, value: { operation, confirmed } }) {
        if (confirmed !== "yes")
          return data({ refusal: { operation, reason: "unconfirmed" as const } }, { status: 400 });
        const started = await startDataOperation(auth, operation, meta);
        if (!started.started) return data({ refusal: { operation, reason: started.reason } }, { status: 409 });
        const t = getInstance(args.context).getFixedT(locale, "reports");
        return redirectWithToast(localizePath("/admin/maintenance/migrations", locale), {
          type: "success",
          title: t("operations.started", { name: t(`operations.${operation}.title`) }),
        });
      },
    }),
  }),
});

type LoaderData = Route.ComponentProps["loaderData"];

export default function Migrations({ loaderData, actionData }: Route.ComponentProps) {
  const { operations, schema } = loaderData;
  const refusal = actionData && "refusal" in actionData ? actionData.refusal : null;
  const running = operations.some((operation) => operation.runs[0]?.status === "running");
  const revalidator = useRevalidator();
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, POLL_SECONDS * 1000);
    return () => clearInterval(timer);
  }, [running, revalidator]);

  return (
    <div className="flex flex-col gap-6">
      {running ? (
        <noscript>
          <meta httpEquiv="refresh" content={String(POLL_SECONDS)} />
        </noscript>
      ) : null}
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
      </div>
      {operations.map((operation) => (
        <OperationCard
          key={operation.operation}
          operation={operation}
          refusal={refusal?.operation === operation.operation ? refusal.reason : null}
        />
      ))}
      <SchemaMigrations schema={schema} />
    </div>
  );
}

type Operation = LoaderData["operations"][number];
type Run = Operation["runs"][number];
type Refusal = "unconfirmed" | NotStarted;

function OperationCard({ operation, refusal }: { operation: Operation; refusal: Refusal | null }) {
  const { t } = useTranslation("reports");
  const [latest, ...earlier] = operation.runs;
  const running = latest?.status === "running";
  const name = t(`operations.${operation.operation}.title`);
  return (
    <Section
      id={`operation-${operation.operation}`}
      title={name}
      description={t(`operations.${operation.operation}.description`)}
    >
      <div className="flex flex-col gap-5" data-operation={operation.operation}>
        {refusal ? <RunRefusal>{t(`operations.refusals.${refusal}`, { name })}</RunRefusal> : null}
        <div className="flex">
          <ConfirmRun
            name={operation.operation}
            label={running ? t("operations.running") : t("operations.run")}
            disabled={running}
            asking={refusal === "unconfirmed"}
            question={t("operations.confirmQuestion", { name })}
            detail={t(`operations.${operation.operation}.confirm`)}
            confirmLabel={t("operations.confirmRun")}
            cancelLabel={t("operations.cancel")}
            fields={{ intent: "start", operation: operation.operation }}
          />
        </div>
        {latest ? (
          <RunSummary run={latest} />
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("operations.never")}</p>
        )}
        {earlier.length ? <RunHistory runs={earlier} /> : null}
      </div>
    </Section>
  );
}

function useCounts() {
  const { t } = useTranslation("reports");
  const number = numberFormat(useLocale());
  return (run: Run) =>
    t("operations.counts", {
      created: number.format(run.created),
      skipped: number.format(run.skipped),
      failed: number.format(run.failed),
      total: number.format(run.total),
    });
}

function RunSummary({ run }: { run: Run }) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  const counts = useCounts();
  const done = run.created + run.skipped + run.failed;
  const tone =
    run.status === "succeeded" && run.failed === 0
      ? "border-primary-200 bg-primary-50/60 dark:border-primary-900 dark:bg-primary-950/30"
      : run.status === "running"
        ? "border-sky-200 bg-sky-50/60 dark:border-sky-900 dark:bg-sky-950/30"
        : "border-amber-200 bg-amber-50/60 dark:border-amber-900 dark:bg-amber-950/30";
  return (
    <div
      className={`rounded-lg border p-4 text-sm ${tone}`}
      data-run={run.id}
      data-run-status={run.status}
      data-created={run.created}
      data-skipped={run.skipped}
      data-failed={run.failed}
      data-total={run.total}
      aria-live="polite"
    >
      <p className="font-medium">
        {t(`operations.status.${run.status}`)}
        {run.error
          ? ` · ${t(`operations.errors.${run.error}`, { defaultValue: t("operations.errors.UNKNOWN") })}`
          : null}
      </p>
      {run.status === "running" ? (
        <progress
          className="mt-3 h-2 w-full overflow-hidden rounded-full [&::-moz-progress-bar]:bg-primary-600 [&::-webkit-progress-bar]:bg-slate-200 [&::-webkit-progress-value]:bg-primary-600 dark:[&::-webkit-progress-bar]:bg-slate-700"
          max={Math.max(1, run.total)}
          value={Math.min(done, run.total)}
          aria-label={t("operations.progress")}
        />
      ) : null}
      <p className="mt-2">{counts(run)}</p>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {t("operations.startedAt")} <LocalTime iso={run.startedAt} locale={locale} />
        {run.startedBy ? ` · ${t("operations.startedBy", { email: run.startedBy })}` : null}
        {run.finishedAt ? (
          <>
            {" · "}
            {t("operations.finishedAt")} <LocalTime iso={run.finishedAt} locale={locale} />
          </>
        ) : null}
      </p>
    </div>
  );
}

function RunHistory({ runs }: { runs: Run[] }) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  const counts = useCounts();
  return (
    <details className="text-sm">
      <summary className="cursor-pointer text-slate-600 dark:text-slate-400">{t("operations.history")}</summary>
      <ul className="mt-2 divide-y divide-slate-200 dark:divide-slate-800">
        {runs.map((run) => (
          <li key={run.id} className="flex flex-wrap gap-x-3 py-2" data-run={run.id} data-run-status={run.status}>
            <LocalTime iso={run.startedAt} locale={locale} />
            <span className="font-medium">{t(`operations.status.${run.status}`)}</span>
            <span>{counts(run)}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

function SchemaMigrations({ schema }: { schema: LoaderData["schema"] }) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  return (
    <Section
      id="schema"
      title={t("migrations.title")}
      description={t("migrations.description", {
        provider: t(`migrations.providers.${schema.provider}`),
        directory: schema.directory,
      })}
    >
      {schema.pending.length ? (
        <div className="mb-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
          <p className="font-medium">{t("migrations.pending", { count: schema.pending.length })}</p>
          <ul className="mt-1 list-disc pl-5 font-mono text-xs" data-testid="pending-migrations">
            {schema.pending.map((migration) => (
              <li key={migration.name} data-migration={migration.name}>
                {migration.name}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p className="mb-4 text-sm text-slate-600 dark:text-slate-400" data-testid="no-pending-migrations">
          {t("migrations.upToDate")}
        </p>
      )}
      {/* One line a migration on a wide screen: its name, when it was applied, its state. The
          checksum is the name's tooltip (a 64-digit hash made every row two lines tall). */}
      <StackedTable
        data-testid="applied-migrations"
        head={
          <>
            <th scope="col" className="px-4 py-2 font-medium">
              {t("migrations.name")}
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              {t("migrations.appliedAt")}
            </th>
            <th scope="col" className="px-4 py-2 font-medium">
              {t("migrations.state")}
            </th>
          </>
        }
      >
        {schema.history.map((migration) => (
          <tr
            key={`${migration.name}-${migration.appliedAt}`}
            data-migration={migration.name}
            data-state={migration.state}
            className={stackedRow}
          >
            <td
              className={`${stackedCell} col-span-2 font-mono text-xs break-all md:px-4 md:py-1.5 md:break-normal md:whitespace-nowrap`}
              title={`${t("migrations.checksum")}: ${migration.checksum}`}
              data-checksum={migration.checksum}
            >
              {migration.name}
            </td>
            <td
              className={`${stackedCell} text-xs whitespace-nowrap text-slate-600 md:px-4 md:py-1.5 dark:text-slate-400`}
            >
              {migration.appliedAt ? <LocalTime iso={migration.appliedAt} locale={locale} /> : "—"}
            </td>
            <td className={`${stackedCell} text-right text-xs whitespace-nowrap md:px-4 md:py-1.5 md:text-left`}>
              <span
                className={
                  migration.state === "applied"
                    ? "text-primary-700 dark:text-primary-300"
                    : "font-medium text-red-700 dark:text-red-400"
                }
              >
                {t(`migrations.states.${migration.state}`)}
              </span>
            </td>
          </tr>
        ))}
      </StackedTable>
    </Section>
  );
}
