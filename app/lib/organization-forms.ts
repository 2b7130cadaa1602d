import { z } from "zod";
import { email } from "~/lib/auth-forms";
import { NAME_MAX, SLUG_MAX } from "~/lib/form-limits";
import { isReservedSlug, SLUG_PATTERN } from "~/lib/organization-paths";
import { isSingleLine } from "~/lib/text";

/**
 * The organization pages' form schemas, shared by the actions and the browser (conform
 * validates with the same schema on both sides). Like auth-forms.ts they check shape only:
 * who may do what, and whether a slug is free, is for the services.
 */

const REQUIRED = "auth:form.required";

const name = z
  .string({ error: REQUIRED })
  .trim()
  .min(1, { error: REQUIRED })
  .max(NAME_MAX)
  .refine(isSingleLine, { error: "auth:form.invalidCharacters" });

const slug = z
  .string({ error: REQUIRED })
  .trim()
  .max(SLUG_MAX)
  .regex(SLUG_PATTERN, { error: "organization:form.slugFormat" })
  .refine((value) => !isReservedSlug(value), { error: "ORGANIZATION_SLUG_ALREADY_TAKEN" });

/** Flat key/value pairs, written as a JSON object in a textarea. */
const metadataObject = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

const metadata = z
  .string()
  .max(4096)
  .transform((text, ctx) => {
    const parsed = metadataObject.safeParse(parseJson(text));
    if (parsed.success) return parsed.data;
    ctx.addIssue({ code: "custom", message: "organization:form.metadataInvalid" });
    return z.NEVER;
  });

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Without a slug the server makes one from the name. */
export const createOrganizationSchema = z.object({
  name,
  slug: slug.optional(),
});

export const updateOrganizationSchema = z.object({
  intent: z.literal("update-organization"),
  name,
  slug,
  logo: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  metadata: metadata.optional(),
});

export const updateMemberRoleSchema = z.object({
  intent: z.literal("update-member-role"),
  memberId: z.string().min(1).max(200),
  role: z.string({ error: REQUIRED }).min(1).max(100),
});

export const setActiveSchema = z.object({
  intent: z.literal("set-active"),
  organizationId: z.string().min(1).max(200),
  redirectTo: z.string().optional(),
});

const id = z.string().min(1).max(200);

/** An invitation names a team or none (the empty choice). */
export const inviteMemberSchema = z.object({
  intent: z.literal("invite-member"),
  email,
  role: z.string({ error: REQUIRED }).min(1).max(100),
  teamId: id.optional(),
});

/** Resend and cancel: buttons on an invitation's row. */
export const invitationActionSchema = z.object({
  intent: z.enum(["resend-invitation", "cancel-invitation"]),
  invitationId: id,
});

export const createTeamSchema = z.object({ intent: z.literal("create-team"), name });

export const renameTeamSchema = z.object({ intent: z.literal("rename-team"), name });

/**
 * A custom role's name: at most ROLE_NAME_MAX characters and no comma, which would split it in
 * a member's role string ("admin,member"); the server stores it lower-cased.
 */
export const ROLE_NAME_MAX = 50;
export const ROLE_NAME_PATTERN = /^[^,\p{Cc}]+$/u;

const roleName = z
  .string({ error: REQUIRED })
  .trim()
  .min(1, { error: REQUIRED })
  .max(ROLE_NAME_MAX)
  .regex(ROLE_NAME_PATTERN, { error: "organization:customRoles.nameFormat" });

/** The permission grid's ticked cells, each "resource:action". */
const permissionCells = z.array(z.string().max(64)).max(64).optional();

export const createRoleSchema = z.object({
  intent: z.literal("create-role"),
  name: roleName,
  permission: permissionCells,
});
export const updateRoleSchema = z.object({
  intent: z.literal("update-role"),
  name: roleName,
  permission: permissionCells,
});
export const deleteRoleSchema = z.object({ intent: z.literal("delete-role") });

/** The grid's ticked cells as a role's permission: resource → actions. */
export function permissionOfCells(cells: readonly string[] = []): Record<string, string[]> {
  const permission: Record<string, string[]> = {};
  for (const cell of cells) {
    const [resource = "", action = ""] = cell.split(":");
    permission[resource] = [...(permission[resource] ?? []), action];
  }
  return permission;
}

/** The members section's URL state: which page of its members. */
export const membersViewSchema = z.object({ page: z.coerce.number().int().min(1).max(100_000).catch(1) });

/** The team dialog's URL state: the search for members to add. */
export const teamViewSchema = z.object({ q: z.string().trim().max(256).catch("") });

/** Adding an organization member to a team, or taking one out. */
export const teamMemberSchema = z.object({
  intent: z.enum(["add-team-member", "remove-team-member"]),
  userId: z.string({ error: REQUIRED }).min(1).max(200),
});

/** The confirmation dialogs' forms: nothing to fill in but the intent. */
export const removeMemberSchema = z.object({ intent: z.literal("remove-member") });
export const leaveOrganizationSchema = z.object({ intent: z.literal("leave-organization") });
export const removeTeamSchema = z.object({ intent: z.literal("remove-team") });

/** Deleting asks for the slug, typed out. */
export function deleteOrganizationSchema(expected: string) {
  return z.object({
    intent: z.literal("delete-organization"),
    confirmSlug: z
      .string({ error: REQUIRED })
      .trim()
      .refine((value) => value === expected, { error: "organization:delete.mismatch" }),
  });
}
