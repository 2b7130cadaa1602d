/**
 * Maintenance > Migrations: the schema migrations (what Prisma's history table says was
 * applied, and checked-in ones not applied yet) and the data operations an admin runs by hand.
 *
 * A data operation runs in the background of the instance that started it, and writes its
 * counts to its `data_operation_run` row as it goes, so any instance's page shows its
 * progress. One run per operation at a time: the row holds the operation's name in a unique
 * column while it runs. A run whose instance stopped (a deploy, a crash) stops being written;
 * after STALE_AFTER_MS without a write it counts as interrupted and may be started again.
 */
import { resolve } from "node:path";
import { audit } from "~/server/audit.server";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import { ensureUserCustomers } from "~/server/billing/billing.server";
import { databaseProvider, isUniqueViolation, prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { MIGRATIONS_DIR, readMigrations } from "~/server/db/migrate.server";
import { isAppError } from "~/server/errors.server";
import { dataOperations, type DataOperation } from "~/lib/reports";
import { requireAdmin } from "./permissions.server";
import { logger } from "~/server/log.server";

/** Longer than any batch can take (100 users, 4 at a time, 5 s provider timeout each). */
const STALE_AFTER_MS = 10 * 60 * 1000;

interface Counts {
  total: number;
  created: number;
  skipped: number;
  failed: number;
}

/** What each operation does; it reports its counts as it goes and returns the final ones. */
const runners: Record<DataOperation, (progress: (counts: Counts) => Promise<void>) => Promise<Counts>> = {
  "ensure-customers": ensureUserCustomers,
};

// ---- schema migrations ----

interface HistoryRow {
  migration_name: string;
  checksum: string;
  started_at: unknown;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/**
 * A timestamp from the history table as ISO 8601. PostgreSQL's driver gives a Date; SQLite
 * keeps the text it was given: ISO 8601 with an offset from our migrator, or
 * `YYYY-MM-DD HH:MM:SS` (UTC) from a column default.
 */
function isoOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text.replace(" ", "T")}Z`);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

export async function schemaMigrations() {
  const provider = databaseProvider();
  const rows = await prisma.$queryRaw<HistoryRow[]>`
    SELECT migration_name, checksum, started_at, finished_at, rolled_back_at
    FROM "_prisma_migrations" ORDER BY started_at, migration_name`;
  const history = rows.map((row) => ({
    name: row.migration_name,
    checksum: row.checksum,
    appliedAt: isoOf(row.finished_at),
    // "applied", or the state of an attempt that did not stick (left by Prisma's CLI).
    state: row.rolled_back_at != null ? "rolledBack" : row.finished_at == null ? "failed" : "applied",
  }));
  const applied = new Set(history.filter((row) => row.state === "applied").map((row) => row.name));
  const pending = readMigrations(resolve(process.cwd(), MIGRATIONS_DIR[provider]))
    .filter((migration) => !applied.has(migration.name))
    .map(({ name, checksum }) => ({ name, checksum }));
  return { provider, directory: MIGRATIONS_DIR[provider], history, pending };
}

// ---- data operations ----

const runSelect = {
  id: true,
  operation: true,
  status: true,
  userId: true,
  total: true,
  created: true,
  skipped: true,
  failed: true,
  error: true,
  startedAt: true,
  updatedAt: true,
  finishedAt: true,
} as const;

const HISTORY_LENGTH = 10;

/** Each operation with its recent runs (newest first) and who started them. */
export async function dataOperationRuns(now = new Date()) {
  const perOperation = await Promise.all(
    dataOperations.map((operation) =>
      prisma.dataOperationRun.findMany({
        where: { operation },
        orderBy: [{ startedAt: "desc" }, { id: "desc" }],
        take: HISTORY_LENGTH,
        select: runSelect,
      }),
    ),
  );
  const userIds = [...new Set(perOperation.flat().flatMap((run) => (run.userId ? [run.userId] : [])))];
  const users = await prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } });
  const emails = new Map(users.map((user) => [user.id, user.email]));
  return dataOperations.map((operation, i) => ({
    operation,
    runs: perOperation[i]!.map((run) => ({
      id: run.id,
      // A run nobody has written for a long time lost its instance.
      status:
        run.status === "running" && now.getTime() - run.updatedAt.getTime() > STALE_AFTER_MS
          ? "interrupted"
          : run.status,
      startedBy: run.userId ? (emails.get(run.userId) ?? null) : null,
      total: run.total,
      created: run.created,
      skipped: run.skipped,
      failed: run.failed,
      error: run.error,
      startedAt: run.startedAt.toISOString(),
      finishedAt: run.finishedAt?.toISOString() ?? null,
    })),
  }));
}

/** Why a run of an operation could not start. */
export type NotStarted = "running" | "PAYMENTS_DISABLED";

/**
 * Why an operation cannot run on this deployment at all, checked before a run is started:
 * a run that could only fail at once would be reported as started, then as stopped.
 */
const unavailable: Record<DataOperation, () => NotStarted | null> = {
  // A deployment that sells nothing has no payment provider to create customers at.
  "ensure-customers": () => (loadEnv().PAYMENT_PROVIDER === "none" ? "PAYMENTS_DISABLED" : null),
};

/**
 * Starts `operation` in the background; `{ started: false }` with the reason when it cannot
 * run here, or a run of it is going on already (here or on another instance). The start and
 * the end are both audited.
 */
export async function startDataOperation(
  admin: AuthSession,
  operation: DataOperation,
  meta: RequestMeta,
): Promise<{ started: true; id: string } | { started: false; reason: NotStarted }> {
  requireAdmin(admin, "YOU_ARE_NOT_ALLOWED_TO_RUN_MAINTENANCE");
  const reason = unavailable[operation]();
  if (reason) return { started: false, reason };
  const userId = admin.user.id;
  // Free the operation from a run whose instance is gone.
  await prisma.dataOperationRun.updateMany({
    where: { runningKey: operation, updatedAt: { lt: new Date(Date.now() - STALE_AFTER_MS) } },
    data: { status: "failed", error: "INTERRUPTED", runningKey: null, finishedAt: new Date() },
  });
  let id: string;
  try {
    ({ id } = await prisma.dataOperationRun.create({
      data: { operation, runningKey: operation, userId },
      select: { id: true },
    }));
  } catch (error) {
    if (isUniqueViolation(error)) return { started: false, reason: "running" };
    throw error;
  }
  await audit({
    userId,
    category: "admin",
    action: "start-data-operation",
    status: "success",
    targetType: "data-operation",
    targetId: id,
    details: { operation },
    meta,
  });
  void execute(id, operation, userId, meta);
  return { started: true, id };
}

/** Runs the operation to its end, whatever happens: the row and the audit log get the outcome. */
async function execute(id: string, operation: DataOperation, userId: string, meta: RequestMeta): Promise<void> {
  let counts: Counts | null = null;
  let error: string | null = null;
  try {
    counts = await runners[operation](async (progress) => {
      counts = progress;
      await prisma.dataOperationRun.update({ where: { id }, data: countsOf(progress) });
    });
  } catch (failure) {
    if (!isAppError(failure)) logger().error({ err: failure }, `Data operation ${operation} (${id}) failed`);
    error = isAppError(failure) ? (failure.code ?? "UNKNOWN") : "UNKNOWN";
  }
  try {
    await prisma.dataOperationRun.update({
      where: { id },
      data: {
        ...(counts ? countsOf(counts) : {}),
        status: error ? "failed" : "succeeded",
        error,
        runningKey: null,
        finishedAt: new Date(),
      },
    });
  } catch (failure) {
    // The database is gone too: the run will show as interrupted once it is stale.
    logger().error({ err: failure }, `Data operation ${operation} (${id}) could not record its end`);
  }
  await audit({
    userId,
    category: "admin",
    action: "data-operation",
    status: error ? "failure" : "success",
    targetType: "data-operation",
    targetId: id,
    details: { operation, ...(counts ? countsOf(counts) : {}), ...(error ? { error } : {}) },
    meta,
  });
}

const countsOf = ({ total, created, skipped, failed }: Counts): Counts => ({ total, created, skipped, failed });
