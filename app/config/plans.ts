/**
 * The plans on sale. Prices are in `currency` per month or per year; the payment provider's
 * price and product ids are configured per plan and interval in the environment.
 */
export const currency = "USD";

export const plans = [
  {
    id: "free",
    monthly: 0,
    yearly: 0,
    seats: 1,
    highlighted: false,
    features: ["projects3", "members1", "community", "basicAnalytics"],
  },
  {
    id: "pro",
    monthly: 19,
    yearly: 190,
    seats: 1,
    highlighted: true,
    features: ["projectsUnlimited", "members1", "emailSupport", "advancedAnalytics", "customDomain"],
  },
  {
    id: "team",
    monthly: 49,
    yearly: 490,
    seats: 5,
    highlighted: false,
    features: ["projectsUnlimited", "members5", "prioritySupport", "advancedAnalytics", "sso", "auditLog"],
  },
] as const;

export type Plan = (typeof plans)[number];
export type PlanId = Plan["id"];
export const billingIntervals = ["monthly", "yearly"] as const;
export type BillingInterval = (typeof billingIntervals)[number];
