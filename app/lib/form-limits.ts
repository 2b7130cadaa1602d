/**
 * The page forms' limits and fixed choices, without zod: pages read them on first paint
 * (an input's hint, a list of choices), while the schemas that build on them load only on a
 * form's first use (decision 0031).
 */

/** The password limits of the product (password.server.ts enforces the same ones). */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;
export const NAME_MAX = 100;

export const SLUG_MAX = 48;

/** better-auth's providerId as the product keeps it: it names the callback addresses. */
export const PROVIDER_ID_MAX = 64;

/** The admin users table's page sizes, and the ban durations (days) an admin picks from. */
export const PAGE_SIZES = [5, 20, 50, 100] as const;
export const BAN_DURATIONS = ["permanent", "1", "7", "30"] as const;
/** The longest reason an admin may give for resetting someone's two-factor (users.server.ts keeps to it). */
export const RESET_REASON_MAX = 500;

/** An API key's fixed choices: expiry (days), budget refill and rate-limit windows (ms). */
export const EXPIRY_DAYS = ["none", "7", "30", "90", "365"] as const;
export const REFILL_PERIODS = { none: 0, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;
export const RATE_WINDOWS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/** The second-step page's views (`?method=`). */
export const SECOND_STEP_METHODS = ["totp", "backup-code", "otp"] as const;
export type SecondStepMethod = (typeof SECOND_STEP_METHODS)[number];
