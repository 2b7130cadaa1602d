import { SLUG_MAX } from "~/lib/form-limits";

/**
 * An organization's addresses and names as every organization page draws them, without zod
 * (the forms' schemas are in organization-forms.ts and load on a form's first use).
 */

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** Paths under /organizations that a slug would be hidden behind. */
const RESERVED_SLUGS = ["new"];
export const isReservedSlug = (slug: string) => RESERVED_SLUGS.includes(slug);

/** Whether `value` is a slug the create form would accept (the live check asks only about those). */
export function isSlug(value: string): boolean {
  return value.length <= SLUG_MAX && SLUG_PATTERN.test(value) && !isReservedSlug(value);
}

/** An organization's sections, each a page of its own; "" is its overview. */
export const organizationSections = [
  "",
  "members",
  "invitations",
  "teams",
  "settings",
  "billing",
  "sso",
  "webhooks",
  "audit-log",
  "api-keys",
  "roles",
] as const;
export type OrganizationSection = (typeof organizationSections)[number];

/** The unprefixed address of an organization's section (its overview without one). */
export const organizationPath = (slug: string, section: OrganizationSection = "") =>
  `/organizations/${slug}${section ? `/${section}` : ""}`;

/** `path` (the members section, or a dialog over it) on page `page` of its members; page 1 is the plain address. */
export const membersPath = (path: string, page: number) => (page > 1 ? `${path}?page=${page}` : path);

/** The unprefixed addresses of the single sign-on section, a connection, and its SCIM page. */
export const ssoPath = (slug: string, providerId?: string, sub?: "remove" | "scim" | "new") =>
  `/organizations/${slug}/sso${providerId ? `/${encodeURIComponent(providerId)}` : ""}${sub ? `/${sub}` : ""}`;

/**
 * A slug made from a name: accents dropped, lowercase ASCII letters and digits joined by
 * dashes. Names in other scripts give "" (the server then picks one).
 */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, SLUG_MAX)
    .replace(/-+$/, "");
}

/** A member's roles ("admin,member") as names to translate under `organization:roles.*`. */
export function roleNames(role: string): string[] {
  return role
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
}
