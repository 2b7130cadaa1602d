/**
 * What the billing pages need around the billing verbs: the accounts a user pays for or
 * belongs to (themself and their organizations) with each one's subscription, the page
 * strings, the plan and interval a URL asks for, and the provider's pages a form may be
 * redirected to (for the Content-Security-Policy's form-action).
 */
import type { RouterContextProvider } from "react-router";
import { billingIntervals, plans, type BillingInterval, type PlanId } from "~/config/plans";
import type { AuthSession } from "~/server/auth/session.server";
import { prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { getInstance, getLocale } from "~/server/i18n.server";
import { can } from "~/server/organization/permissions.server";
import { roleTableOf } from "~/server/organization/organizations.server";
import { activeSubscriptions, paymentsState, subscriptionOut, type SubscriptionOut } from "./billing.server";
import type { CustomerType } from "./provider.server";

export function billingT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(getLocale(context), "billing");
}

export interface BillingAccount {
  referenceId: string;
  customerType: CustomerType;
  /** The organization's name; null for the user's own account. */
  name: string | null;
  /** May buy, cancel, restore and open the portal (the user, an organization's owners and admins). */
  canManage: boolean;
  subscription: SubscriptionOut | null;
}

/** The user's own account first, then their organizations (oldest first), each with its subscription. */
export async function billingAccounts(auth: AuthSession): Promise<BillingAccount[]> {
  const memberships = await prisma.member.findMany({
    where: { userId: auth.user.id },
    select: { role: true, organization: { select: { id: true, name: true } } },
    orderBy: { organization: { createdAt: "asc" } },
  });
  const accounts: Omit<BillingAccount, "subscription">[] = [
    { referenceId: auth.user.id, customerType: "user", name: null, canManage: true },
    ...(await Promise.all(
      memberships.map(async ({ role, organization }) => ({
        referenceId: organization.id,
        customerType: "organization" as const,
        name: organization.name,
        canManage: can({ role, roleTable: await roleTableOf(organization.id) }, "billing", ["manage"]),
      })),
    )),
  ];
  const rows = await activeSubscriptions(accounts.map((account) => account.referenceId));
  return accounts.map((account) => {
    const row = rows.find((candidate) => candidate.referenceId === account.referenceId);
    return { ...account, subscription: row ? subscriptionOut(row) : null };
  });
}

/**
 * What the pages say about selling: null while payments work; "off" when this server does not
 * sell (PAYMENT_PROVIDER=none); "unconfigured" while the provider's variables are missing,
 * with `canCheckout` for the plan asked for, and the missing variables for an admin only (a
 * user is just told that upgrades are not available yet).
 */
export type PaymentsNotice =
  { mode: "off" } | { mode: "unconfigured"; canCheckout: boolean; variables: string[] | null } | null;

export function paymentsNotice(
  viewer: { isAdmin: boolean },
  wanted?: { plan: Exclude<PlanId, "free">; interval: BillingInterval },
): PaymentsNotice {
  const state = paymentsState(wanted);
  if (state.mode === "off") return { mode: "off" };
  if (state.mode === "ready") return null;
  return {
    mode: "unconfigured",
    canCheckout: state.canCheckout,
    variables: viewer.isAdmin ? state.missing : null,
  };
}

/** The paid plan and interval a query asks for (`plan`, `interval`), or null. */
export function planOfQuery(url: URL): { plan: Exclude<PlanId, "free">; interval: BillingInterval } | null {
  const plan = plans.find((candidate) => candidate.id === url.searchParams.get("plan") && candidate.monthly > 0);
  if (!plan) return null;
  const asked = url.searchParams.get("interval");
  const interval = billingIntervals.find((candidate) => candidate === asked) ?? "monthly";
  return { plan: plan.id as Exclude<PlanId, "free">, interval };
}

/**
 * Origins of the provider's hosted checkout and portal: a form posted to us may be
 * redirected there, and browsers hold such a redirect to form-action. A base-URL override
 * (a stand-in) hosts them itself.
 */
export function hostedPageOrigins(): string[] {
  const env = loadEnv();
  if (env.PAYMENT_PROVIDER === "none") return [];
  if (env.PAYMENT_PROVIDER === "polar") {
    return [
      "https://polar.sh",
      "https://sandbox.polar.sh",
      ...(env.POLAR_API_BASE_URL ? [new URL(env.POLAR_API_BASE_URL).origin] : []),
    ];
  }
  return [
    "https://checkout.stripe.com",
    "https://billing.stripe.com",
    ...(env.STRIPE_API_BASE_URL ? [new URL(env.STRIPE_API_BASE_URL).origin] : []),
  ];
}
