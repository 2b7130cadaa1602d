/**
 * The reports' query strings as their loaders read them (app/lib/reports.ts holds what the
 * pages share). A value that does not parse falls back to the default instead of failing: a
 * hand-edited or outdated link still opens the page.
 */
import { z } from "zod";
import { AUDIT_STATUSES, DEFAULT_PAGE_SIZE, DEFAULT_RANGE, PAGE_SIZES, RANGES } from "~/lib/reports";

/** An empty form field is no filter. */
const blank = (value: unknown) => (value === "" ? undefined : value);
/** A lower-case token such as a status or a category. */
const token = z
  .preprocess(
    blank,
    z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/)
      .optional(),
  )
  .catch(undefined);
/** A calendar day, YYYY-MM-DD, that exists. */
const day = z
  .preprocess(
    blank,
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      // Zod runs this check even when the pattern failed: a text that is no date at all must not throw.
      .refine((value) => {
        const date = new Date(`${value}T00:00:00Z`);
        return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
      })
      .optional(),
  )
  .catch(undefined);

export const rangeQuery = z.object({
  range: z.coerce
    .number()
    .refine((value) => (RANGES as readonly number[]).includes(value))
    .catch(DEFAULT_RANGE),
});

const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).catch(1),
  size: z.coerce
    .number()
    .refine((value) => (PAGE_SIZES as readonly number[]).includes(value))
    .catch(DEFAULT_PAGE_SIZE),
});

export const subscriptionsQuery = pageQuery.extend({ status: token });

export const auditLogFilter = z.object({
  category: token,
  status: z.preprocess(blank, z.enum(AUDIT_STATUSES).optional()).catch(undefined),
  /** Part of the acting user's email (stored lower-cased). */
  user: z.preprocess(blank, z.string().trim().toLowerCase().max(256).optional()).catch(undefined),
  /** First and last day (UTC), both included. */
  from: day,
  to: day,
  /** Part of the action or of the details. */
  q: z.preprocess(blank, z.string().trim().max(256).optional()).catch(undefined),
});
export type AuditLogFilter = z.infer<typeof auditLogFilter>;

export const auditLogQuery = pageQuery.extend(auditLogFilter.shape);

/** An organization's audit log: the same filter, with the acting person's name or email instead of the text searches. */
export const organizationAuditLogFilter = z.object({
  /** Part of the acting person's name or email. */
  member: z.preprocess(blank, z.string().trim().max(256).optional()).catch(undefined),
  category: auditLogFilter.shape.category,
  status: auditLogFilter.shape.status,
  from: day,
  to: day,
});
export type OrganizationAuditLogFilter = z.infer<typeof organizationAuditLogFilter>;

export const organizationAuditLogQuery = pageQuery.extend(organizationAuditLogFilter.shape);
