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

/** The second-step page's views (`?method=`). */
export const SECOND_STEP_METHODS = ["totp", "backup-code", "otp"] as const;
export type SecondStepMethod = (typeof SECOND_STEP_METHODS)[number];
