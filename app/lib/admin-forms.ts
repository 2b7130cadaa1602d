import { z } from "zod";
import { email, name, newPassword } from "~/lib/auth-forms";
import { BAN_DURATIONS, PAGE_SIZES, RESET_REASON_MAX } from "~/lib/form-limits";

/**
 * The admin console's user forms and the users table's URL state, shared by the actions,
 * the loaders and the browser (conform). Shape only: the admin services decide.
 */

const role = z.enum(["user", "admin"]);

/** The users table as the URL says it (search, filters, order, page): shareable views. */
const usersViewSchema = z.object({
  q: z.string().trim().max(256).catch(""),
  field: z.enum(["email", "name"]).catch("email"),
  role: z.enum(["all", "user", "admin"]).catch("all"),
  status: z.enum(["all", "active", "banned"]).catch("all"),
  from: z.iso.date().optional().catch(undefined),
  to: z.iso.date().optional().catch(undefined),
  sort: z.enum(["createdAt", "name", "email", "role"]).catch("createdAt"),
  dir: z.enum(["asc", "desc"]).catch("desc"),
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  size: z.coerce
    .number()
    .refine((value) => (PAGE_SIZES as readonly number[]).includes(value))
    .catch(20),
});
export type UsersView = z.infer<typeof usersViewSchema>;

export const viewOf = (params: URLSearchParams): UsersView => usersViewSchema.parse(Object.fromEntries(params));

/** The row buttons of the users table: each names its row's user; set-role also the new role. */
export const userRowSchema = z.object({ userId: z.string().min(1) });
export const setRoleSchema = userRowSchema.extend({ role });

export const createUserSchema = z.object({ name, email, password: newPassword, role });

export const banSchema = z.object({
  reason: z.string().trim().max(1000).optional(),
  duration: z.enum(BAN_DURATIONS),
});

/** The reason is required: it is all the audit log will say about why the second factor went. */
export const resetTwoFactorSchema = z.object({
  reason: z
    .string({ error: "auth:form.required" })
    .trim()
    .min(1, { error: "auth:form.required" })
    .max(RESET_REASON_MAX, { error: "admin:twoFactor.reasonTooLong" }),
});

export const setPasswordSchema = z.object({ password: newPassword });

export const deleteUserSchema = z.object({ intent: z.literal("delete-user") });
