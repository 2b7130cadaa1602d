/** Subscriptions through Polar (the suite is in helpers/billing.ts, shared with the other provider). */
import { billingSuite } from "./helpers/billing";

billingSuite("polar");
