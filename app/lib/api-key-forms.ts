/**
 * The API key pages' forms (account settings and an organization's workspace), checked with
 * the same schemas in the browser and on the server. Permissions are checkboxes named
 * `permission` with values "resource:action"; expiry, refill and the rate limit's window are
 * fixed choices.
 */
import { z } from "zod";
import { isSingleLine } from "~/lib/text";

export const EXPIRY_DAYS = ["none", "7", "30", "90", "365"] as const;
export const REFILL_PERIODS = { none: 0, day: 86_400_000, week: 7 * 86_400_000, month: 30 * 86_400_000 } as const;
export const RATE_WINDOWS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

const count = (max: number) => z.coerce.number().int().min(1).max(max);
const REQUIRED = "auth:form.required";
const keyName = z
  .string({ error: REQUIRED })
  .trim()
  .min(1, { error: REQUIRED })
  .max(32)
  .refine(isSingleLine, { error: "auth:form.invalidCharacters" });

export const createKeySchema = z.object({
  name: keyName,
  expiry: z.enum(EXPIRY_DAYS).default("none"),
  permission: z
    .array(z.string().regex(/^[a-zA-Z]+:[a-zA-Z]+$/))
    .max(50)
    .default([]),
  budget: count(1_000_000_000).optional(),
  refill: z.enum(Object.keys(REFILL_PERIODS) as [keyof typeof REFILL_PERIODS]).default("none"),
  rateLimit: count(1_000_000).optional(),
  rateWindow: z.enum(Object.keys(RATE_WINDOWS) as [keyof typeof RATE_WINDOWS]).default("day"),
});

const keyId = z.string().min(1).max(200);
export const renameKeySchema = z.object({ keyId, name: keyName });
export const toggleKeySchema = z.object({ keyId, enabled: z.enum(["true", "false"]) });
export const deleteKeySchema = z.object({ keyId });

/** "resource:action" checkbox values as a permission set. */
export function grantsFromValues(values: readonly string[]): Record<string, string[]> {
  const grants: Record<string, string[]> = {};
  for (const value of values) {
    const [resource = "", action = ""] = value.split(":");
    grants[resource] = [...new Set([...(grants[resource] ?? []), action])];
  }
  return grants;
}

/** A permission set as "resource:action" values, in the table's order. */
export const valuesOfGrants = (grants: Record<string, readonly string[] | undefined>) =>
  Object.entries(grants).flatMap(([resource, actions]) => (actions ?? []).map((action) => `${resource}:${action}`));
