/**
 * An organization's plan as the organization's own pages show it (its overview and billing
 * section); buying and managing it stay on the billing pages.
 */
import { activeSubscriptions } from "./billing.server";

export interface OrganizationPlan {
  plan: string;
  /** The subscription's state; null on the free plan (no subscription). */
  status: string | null;
  /** The next renewal, for a subscription that goes on. */
  renewsOn: string | null;
  /** When a subscription that was cancelled ends. */
  endsOn: string | null;
  trialEnd: string | null;
}

/** The active subscription's plan, state and dates, or the free plan when there is none. */
export async function organizationPlan(organizationId: string): Promise<OrganizationPlan> {
  const [row] = await activeSubscriptions([organizationId]);
  if (!row) return { plan: "free", status: null, renewsOn: null, endsOn: null, trialEnd: null };
  const ends = row.cancelAtPeriodEnd || row.cancelAt !== null;
  const end = (row.cancelAt ?? row.periodEnd)?.toISOString() ?? null;
  return {
    plan: row.plan,
    status: row.status,
    renewsOn: ends ? null : end,
    endsOn: ends ? end : null,
    trialEnd: row.status === "trialing" ? (row.trialEnd?.toISOString() ?? null) : null,
  };
}
