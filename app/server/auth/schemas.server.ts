/**
 * Input pieces shared by the API and the pages. Where better-auth gives a case its own
 * error code, the schema's message is that code (the API answers it; pages translate it as
 * `auth:errors.<CODE>`).
 */
import { z } from "zod";

export { passwordSchema, PASSWORD_MAX, PASSWORD_MIN } from "./password.server";

/** An email whose malformed form answers INVALID_EMAIL (a missing one stays VALIDATION_ERROR). */
export const emailSchema = z.email({ error: (issue) => (issue.code === "invalid_type" ? undefined : "INVALID_EMAIL") });

/** A boolean that also arrives as text from forms and query strings ("true", "on", "1", …). */
export const booleanish = z.union([
  z.boolean(),
  z.enum(["true", "false", "on", "off", "1", "0", ""]).transform((value) => ["true", "on", "1"].includes(value)),
]);

/** Lower-cased and trimmed: emails are stored and compared this way. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
