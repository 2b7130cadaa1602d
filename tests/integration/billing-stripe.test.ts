/** Subscriptions through Stripe (the suite is in helpers/billing.ts, shared with the other provider). */
import { billingSuite } from "./helpers/billing";

billingSuite("stripe");
