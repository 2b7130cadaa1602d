import { z } from "zod";

/**
 * The two-factor pages' forms (the sign-in second step and the settings page), shared by the
 * server actions and the browser. Codes are only shaped here; the service decides.
 */
const REQUIRED = "auth:form.required";

const code = z.string({ error: REQUIRED }).trim().min(1, { error: REQUIRED }).max(64, { error: "INVALID_CODE" });
const password = z.string({ error: REQUIRED }).max(512, { error: "INVALID_PASSWORD" });

/** The second step: a code of one kind, and whether to trust this browser for 30 days. */
export const secondStepSchema = z.object({
  intent: z.enum(["totp", "backup-code", "otp"]),
  code,
  trustDevice: z.boolean().default(false),
});

export const sendOtpSchema = z.object({ intent: z.literal("send-otp") });

export const enableSchema = z.object({ intent: z.literal("enable"), password });
export const verifySetupSchema = z.object({
  intent: z.literal("verify"),
  code,
  // The backup codes shown with the QR code, carried so a wrong code can show them again.
  backupCodes: z.string().max(200).optional(),
});
export const disableSchema = z.object({ intent: z.literal("disable"), password });
export const regenerateSchema = z.object({ intent: z.literal("regenerate"), password });

/** The second-step page's views (`?method=`). */
export const SECOND_STEP_METHODS = ["totp", "backup-code", "otp"] as const;
export type SecondStepMethod = (typeof SECOND_STEP_METHODS)[number];
