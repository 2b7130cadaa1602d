import { z } from "zod";
import { NAME_MAX, PASSWORD_MAX, PASSWORD_MIN } from "~/lib/form-limits";
import { isSingleLine } from "~/lib/text";

/**
 * The page forms' schemas, shared by the server action and the browser (conform validates
 * with the same schema on both sides). They check shape only: every rule about accounts
 * lives in the services, which check passwords again with the same limits.
 *
 * Messages are codes or keys, turned into words at render time (components/ui/error-text):
 * catalogue codes read `auth:errors.<CODE>`, "auth:…" keys read themselves, and zod's own
 * messages arrive already in the page language through `zodErrorMap(locale)`.
 */

const REQUIRED = "auth:form.required";

export const email = z
  .email({ error: (issue) => (issue.input === undefined ? REQUIRED : "INVALID_EMAIL") })
  .max(254, { error: "INVALID_EMAIL" });

/** Tabs and line breaks, which a one-line input never sends: "auth:form.invalidCharacters". */
const SINGLE_LINE = { error: "auth:form.invalidCharacters" } as const;

/** A new password: the catalogue's length codes; one line, as a password input types it. */
export const newPassword = z
  .string({ error: REQUIRED })
  .min(PASSWORD_MIN, { error: "PASSWORD_TOO_SHORT" })
  .max(PASSWORD_MAX, { error: "PASSWORD_TOO_LONG" })
  .refine(isSingleLine, SINGLE_LINE);

/** An existing password is only checked by the service; just bound its size. */
const currentPassword = z.string({ error: REQUIRED }).max(PASSWORD_MAX * 4, { error: "INVALID_PASSWORD" });

export const name = z
  .string({ error: REQUIRED })
  .trim()
  .min(1, { error: REQUIRED })
  .max(NAME_MAX)
  .refine(isSingleLine, SINGLE_LINE);

function confirmed<T extends { newPassword: string; confirmPassword: string }>(value: T, ctx: z.RefinementCtx) {
  if (value.newPassword !== value.confirmPassword) {
    ctx.addIssue({ code: "custom", path: ["confirmPassword"], message: "auth:form.passwordMismatch" });
  }
}

export const signInSchema = z.object({
  intent: z.literal("sign-in"),
  email,
  password: currentPassword,
  rememberMe: z.boolean().default(false),
  redirect: z.string().optional(),
});

/** The "resend the verification email" button of the sign-in and verify-email pages. */
export const sendVerificationSchema = z.object({
  intent: z.literal("send-verification"),
  email,
});

export const signUpSchema = z
  .object({
    name,
    email,
    newPassword,
    confirmPassword: z.string({ error: REQUIRED }),
  })
  .superRefine(confirmed);

export const forgotPasswordSchema = z.object({ email });

export const resetPasswordSchema = z
  .object({
    token: z.string({ error: "INVALID_TOKEN" }).min(1).max(512),
    newPassword,
    confirmPassword: z.string({ error: REQUIRED }),
  })
  .superRefine(confirmed);

// ---- profile: one form per section, told apart by `intent` ----

export const updateProfileSchema = z.object({
  intent: z.literal("update-profile"),
  name,
  image: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
});

export const changeEmailSchema = z.object({
  intent: z.literal("change-email"),
  newEmail: email,
});

export const changePasswordSchema = z
  .object({
    intent: z.literal("change-password"),
    currentPassword,
    newPassword,
    confirmPassword: z.string({ error: REQUIRED }),
    revokeOtherSessions: z.boolean().default(false),
  })
  .superRefine(confirmed);

export const setPasswordSchema = z
  .object({
    intent: z.literal("set-password"),
    newPassword,
    confirmPassword: z.string({ error: REQUIRED }),
  })
  .superRefine(confirmed);

export const revokeSessionSchema = z.object({
  intent: z.literal("revoke-session"),
  token: z.string().min(1).max(512),
});

export const revokeOtherSessionsSchema = z.object({ intent: z.literal("revoke-other-sessions") });

export const unlinkAccountSchema = z.object({
  intent: z.literal("unlink-account"),
  accountId: z.string().min(1).max(200),
});

/** With a password the deletion needs it; without one the emailed confirmation applies. */
export function deleteAccountSchema(hasPassword: boolean) {
  return z.object({
    intent: z.literal("delete-account"),
    password: hasPassword ? currentPassword : z.undefined().optional(),
  });
}
