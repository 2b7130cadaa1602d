/** The billing pages' forms, shared by their components (conform) and their actions. */
import { z } from "zod";
import { billingIntervals } from "~/config/plans";

/** Who pays: the user's own id or one of their organizations' (the server tells which). */
const reference = { referenceId: z.string().min(1).max(128) };

/** Checkout: the paid plan, its interval, and who pays (the user or one of their organizations). */
export const checkoutSchema = z.object({
  plan: z.enum(["pro", "team"]),
  interval: z.enum(billingIntervals),
  ...reference,
});

/** The billing page's buttons: cancel at period end, restore, open the provider's portal. */
export const manageSubscriptionSchema = z.object({
  intent: z.enum(["cancel", "restore", "portal"]),
  ...reference,
});
