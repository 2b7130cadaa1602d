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

// The backup codes shown with the QR code, carried so that the set-up can show them again.
const shownBackupCodes = z.string().max(200).optional();

export const enableSchema = z.object({ intent: z.literal("enable"), password });
export const verifySetupSchema = z.object({
  intent: z.literal("verify"),
  code,
  backupCodes: shownBackupCodes,
});
/** The set-up's secret again after a wrong code: only with the password. */
export const revealSchema = z.object({ intent: z.literal("reveal"), password, backupCodes: shownBackupCodes });
export const disableSchema = z.object({ intent: z.literal("disable"), password });
export const regenerateSchema = z.object({ intent: z.literal("regenerate"), password });
