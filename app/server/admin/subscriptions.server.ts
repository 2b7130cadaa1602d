/**
 * Every subscription, for the admin console: counts per status (the tabs) and one page of
 * rows with their owners. A subscription's reference is a user or an organization id
 * without a foreign key, so a page's owners are looked up with one query per kind, never
 * one per row.
 */
import type { z } from "zod";
import { STATUS_TABS } from "~/lib/reports";
import type { subscriptionsQuery } from "~/server/report-queries.server";
import { prisma } from "~/server/db.server";

type Owner =
  | { kind: "user"; id: string; name: string; email: string }
  | { kind: "organization"; id: string; name: string; slug: string }
  | { kind: "unknown"; id: string };

export async function subscriptionReport(query: z.infer<typeof subscriptionsQuery>) {
  const groups = await prisma.subscription.groupBy({ by: ["status"], _count: { _all: true } });
  const counts = Object.fromEntries(groups.map((group) => [group.status, group._count._all]));
  const all = groups.reduce((sum, group) => sum + group._count._all, 0);
  // Other statuses get a tab when some subscription has them, or when the link asks for one.
  const present = [...new Set([...Object.keys(counts), ...(query.status ? [query.status] : [])])].filter(
    (status) => !(STATUS_TABS as readonly string[]).includes(status),
  );
  const tabs = [
    { status: null, count: all },
    ...[...STATUS_TABS, ...present.sort()].map((status) => ({ status, count: counts[status] ?? 0 })),
  ];

  const total = query.status ? (counts[query.status] ?? 0) : all;
  const pages = Math.max(1, Math.ceil(total / query.size));
  // Past the last page (a link from when there were more rows): the last page.
  const page = Math.min(query.page, pages);
  const rows = await prisma.subscription.findMany({
    where: query.status ? { status: query.status } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    skip: (page - 1) * query.size,
    take: query.size,
    select: {
      id: true,
      plan: true,
      referenceId: true,
      provider: true,
      status: true,
      periodStart: true,
      periodEnd: true,
      trialEnd: true,
      cancelAtPeriodEnd: true,
      cancelAt: true,
      seats: true,
      billingInterval: true,
    },
  });

  const ids = [...new Set(rows.map((row) => row.referenceId))];
  const [users, organizations] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } }),
    prisma.organization.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, slug: true } }),
  ]);
  const owners = new Map<string, Owner>([
    ...users.map((user) => [user.id, { kind: "user" as const, ...user }] as const),
    ...organizations.map(
      (organization) => [organization.id, { kind: "organization" as const, ...organization }] as const,
    ),
  ]);

  return {
    status: query.status ?? null,
    tabs,
    page,
    pages,
    size: query.size,
    total,
    rows: rows.map((row) => ({
      ...row,
      // A deleted account's subscription stays (ended at period end) with an owner no longer here.
      owner: owners.get(row.referenceId) ?? ({ kind: "unknown", id: row.referenceId } as Owner),
    })),
  };
}
