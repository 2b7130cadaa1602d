/**
 * The admin dashboard's figures. Everything is counted and grouped by the database; no query
 * reads more rows than there are days, statuses or price points, however many users there
 * are. Days are UTC days, so every admin sees the same buckets.
 */
import { plans } from "~/config/plans";
import { databaseProvider, Prisma, prisma } from "~/server/db.server";

const DAY_MS = 24 * 60 * 60 * 1000;

interface DayCount {
  /** YYYY-MM-DD (UTC) */
  day: string;
  count: number;
}

interface DayStatusCounts {
  day: string;
  /** Subscriptions started that day, by their status now. */
  counts: Record<string, number>;
}

/** Price points of a set of subscriptions: how many have this plan, interval and seat count. */
export interface PricePoint {
  plan: string;
  billingInterval: string | null;
  seats: number | null;
  count: number;
}

/**
 * What the subscriptions of `points` bring in per month, in the plans' currency: a yearly
 * price counts as a twelfth per month, and a subscription holding several of a plan (Team's
 * packs of seats) pays for each. A plan that is no longer on sale counts nothing.
 */
export function monthlyRevenue(points: readonly PricePoint[]): number {
  let total = 0;
  for (const point of points) {
    const plan = plans.find((candidate) => candidate.id === point.plan);
    if (!plan) continue;
    const price = point.billingInterval === "year" ? plan.yearly / 12 : plan.monthly;
    const quantity = point.seats ? point.seats / plan.seats : 1;
    total += price * quantity * point.count;
  }
  return total;
}

/** The `days` UTC days that end today, oldest first. */
export function lastDays(days: number, now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * A column's UTC day in SQL. SQLite holds Prisma's DateTime as ISO 8601 text with an offset,
 * which date() reads and turns into UTC; PostgreSQL holds a UTC timestamp.
 */
const dayOf = (column: string) =>
  Prisma.raw(databaseProvider() === "postgresql" ? `to_char("${column}", 'YYYY-MM-DD')` : `date("${column}")`);

/** PostgreSQL answers COUNT(*) as a bigint. */
const count = (value: number | bigint) => Number(value);

async function signUpsPerDay(since: Date): Promise<Map<string, number>> {
  const rows = await prisma.$queryRaw<{ day: string; n: number | bigint }[]>`
    SELECT ${dayOf("createdAt")} AS day, COUNT(*) AS n FROM "user"
    WHERE "createdAt" >= ${since} GROUP BY 1`;
  return new Map(rows.map((row) => [row.day, count(row.n)]));
}

async function subscriptionsPerDay(since: Date): Promise<{ day: string; status: string; n: number }[]> {
  const rows = await prisma.$queryRaw<{ day: string; status: string; n: number | bigint }[]>`
    SELECT ${dayOf("createdAt")} AS day, "status", COUNT(*) AS n FROM "subscription"
    WHERE "createdAt" >= ${since} GROUP BY 1, 2`;
  return rows.map((row) => ({ day: row.day, status: row.status, n: count(row.n) }));
}

async function pricePoints(status: string): Promise<PricePoint[]> {
  const groups = await prisma.subscription.groupBy({
    by: ["plan", "billingInterval", "seats"],
    where: { status },
    _count: { _all: true },
  });
  return groups.map((group) => ({
    plan: group.plan,
    billingInterval: group.billingInterval,
    seats: group.seats,
    count: group._count._all,
  }));
}

export async function dashboard(rangeDays: number, now = new Date()) {
  const days = lastDays(rangeDays, now);
  const since = new Date(`${days[0]}T00:00:00.000Z`);
  const ago = (n: number) => new Date(now.getTime() - n * DAY_MS);
  const [users, newUsers7, newUsers30, verifiedUsers, activeSessions, organizations, statuses, paying, trialing] =
    await Promise.all([
      prisma.user.count(),
      prisma.user.count({ where: { createdAt: { gte: ago(7) } } }),
      prisma.user.count({ where: { createdAt: { gte: ago(30) } } }),
      prisma.user.count({ where: { emailVerified: true } }),
      prisma.session.count({ where: { expiresAt: { gt: now } } }),
      prisma.organization.count(),
      prisma.subscription.groupBy({ by: ["status"], _count: { _all: true } }),
      pricePoints("active"),
      pricePoints("trialing"),
    ]);
  const [signUps, subscriptionRows] = await Promise.all([signUpsPerDay(since), subscriptionsPerDay(since)]);

  const byStatus = Object.fromEntries(statuses.map((group) => [group.status, group._count._all]));
  const chartStatuses = [...new Set(subscriptionRows.map((row) => row.status))].sort();
  const perDay = new Map(days.map((day) => [day, {} as Record<string, number>]));
  for (const row of subscriptionRows) {
    const counts = perDay.get(row.day);
    if (counts) counts[row.status] = row.n;
  }
  return {
    range: rangeDays,
    stats: {
      users,
      newUsers7,
      newUsers30,
      verifiedUsers,
      verifiedShare: users ? verifiedUsers / users : 0,
      activeSessions,
      organizations,
      activeSubscriptions: byStatus.active ?? 0,
      trialingSubscriptions: byStatus.trialing ?? 0,
      monthlyRevenue: monthlyRevenue(paying),
      trialRevenue: monthlyRevenue(trialing),
    },
    signUps: days.map((day): DayCount => ({ day, count: signUps.get(day) ?? 0 })),
    subscriptions: {
      statuses: chartStatuses,
      days: days.map((day): DayStatusCounts => ({ day, counts: perDay.get(day)! })),
    },
  };
}
