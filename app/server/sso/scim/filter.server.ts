/**
 * SCIM filters (`filter=userName eq "x"`) and PATCH paths (`emails[type eq "work"].value`),
 * parsed by scim2-parse-filter, a maintained RFC 7644 parser, rather than by hand. A list's
 * filter becomes a database query over the attributes a directory looks people and groups up
 * by (equality, joined with and/or); anything else is refused as `invalidFilter`, not ignored,
 * so a directory never mistakes a partial answer for the truth.
 */
import { parse, type Filter } from "scim2-parse-filter";
import type { Prisma } from "~/server/db.server";
import { SCHEMAS, scimFail } from "./protocol.server";

/** Filters past this length are refused before parsing (a directory's are a few dozen characters). */
const MAX_FILTER_LENGTH = 1024;

/** `path` without its core schema's URN (`urn:…:core:2.0:User:userName` is `userName`). */
export function withoutCoreSchema(path: string, schema: string): string {
  const prefix = `${schema}:`.toLowerCase();
  return path.toLowerCase().startsWith(prefix) ? path.slice(prefix.length) : path;
}

function parsed(text: string, what: "filter" | "path", scimType: "invalidFilter" | "invalidPath"): Filter {
  if (text.length > MAX_FILTER_LENGTH) scimFail(400, `The ${what} is too long`, scimType);
  try {
    return parse(text);
  } catch {
    return scimFail(400, `The ${what} is not valid SCIM filter syntax: ${text}`, scimType);
  }
}

type Condition<W> = (value: unknown) => W;

const text = (value: unknown, attribute: string): string =>
  typeof value === "string" ? value : scimFail(400, `${attribute} is compared with a string`, "invalidFilter");

/** The database condition of one filter, for attributes that `conditions` knows (lower-case names). */
function toWhere<W extends object>(filter: Filter, schema: string, conditions: Record<string, Condition<W>>): W {
  switch (filter.op) {
    case "and":
      return { AND: filter.filters.map((part) => toWhere(part, schema, conditions)) } as W;
    case "or":
      return { OR: filter.filters.map((part) => toWhere(part, schema, conditions)) } as W;
    case "eq": {
      const attribute = withoutCoreSchema(filter.attrPath, schema).toLowerCase();
      const condition = conditions[attribute];
      if (!condition) scimFail(400, `Filtering by ${filter.attrPath} is not supported`, "invalidFilter");
      return condition(filter.compValue);
    }
    case "[]": {
      // members[value eq "…"], emails[value eq "…"]: the same as members.value eq "…".
      const inner = filter.valFilter;
      if (inner.op === "eq" && inner.attrPath.toLowerCase() === "value") {
        return toWhere({ ...inner, attrPath: `${filter.attrPath}.value` }, schema, conditions);
      }
      return scimFail(400, `Filtering by ${filter.attrPath}[…] supports value eq only`, "invalidFilter");
    }
    default:
      return scimFail(400, `The filter operator "${filter.op}" is not supported`, "invalidFilter");
  }
}

/** The condition of a Users list's `filter`: id, userName (any case), externalId, emails.value, active. */
export function userFilter(filter: string): Prisma.ScimUserWhereInput {
  const email: Condition<Prisma.ScimUserWhereInput> = (value) => ({
    user: { email: text(value, "emails.value").toLowerCase() },
  });
  return toWhere<Prisma.ScimUserWhereInput>(parsed(filter, "filter", "invalidFilter"), SCHEMAS.user, {
    id: (value) => ({ id: text(value, "id") }),
    username: (value) => ({ userName: text(value, "userName").toLowerCase() }),
    externalid: (value) => ({ externalId: text(value, "externalId") }),
    "emails.value": email,
    emails: email,
    active: (value) =>
      typeof value === "boolean"
        ? { active: value }
        : scimFail(400, "active is compared with true or false", "invalidFilter"),
  });
}

/** The condition of a Groups list's `filter`: id, displayName, externalId, members.value. */
export function groupFilter(filter: string): Prisma.ScimGroupWhereInput {
  return toWhere<Prisma.ScimGroupWhereInput>(parsed(filter, "filter", "invalidFilter"), SCHEMAS.group, {
    id: (value) => ({ id: text(value, "id") }),
    displayname: (value) => ({ displayName: text(value, "displayName") }),
    externalid: (value) => ({ externalId: text(value, "externalId") }),
    "members.value": (value) => ({ members: { some: { scimUserId: text(value, "members.value") } } }),
  });
}

// ---- PATCH paths ----

/** A PATCH path: an attribute (in the core schema or an extension), maybe a filter on its values, maybe a sub-attribute. */
export interface PatchPath {
  /** The extension schema's URN when the attribute is in one. */
  extension?: string;
  attribute: string;
  /** `emails[type eq "work"]`: which of a multi-valued attribute's values. */
  filter?: Filter;
  sub?: string;
}

const NAME = /^[A-Za-z$][\w$-]*$/;

/**
 * Reads a PATCH path (RFC 7644 section 3.5.2): `attribute`, `attribute.sub`,
 * `attribute[filter]`, `attribute[filter].sub`, each maybe after a schema URN and a colon.
 */
export function patchPath(path: string, schema: string, extensions: readonly string[]): PatchPath {
  let rest = withoutCoreSchema(path.trim(), schema);
  let extension: string | undefined;
  for (const urn of extensions) {
    // The extension as a whole: its attributes are in the operation's value.
    if (rest.toLowerCase() === urn.toLowerCase()) return { attribute: urn };
    if (rest.toLowerCase().startsWith(`${urn.toLowerCase()}:`)) {
      extension = urn;
      rest = rest.slice(urn.length + 1);
    }
  }
  const close = rest.lastIndexOf("]");
  if (close >= 0) {
    const valuePath = parsed(rest.slice(0, close + 1), "path", "invalidPath");
    const after = rest.slice(close + 1);
    const sub = after.slice(1);
    if (
      valuePath.op !== "[]" ||
      !NAME.test(valuePath.attrPath) ||
      (after && !(after.startsWith(".") && NAME.test(sub)))
    ) {
      scimFail(400, `The path ${path} is not supported`, "invalidPath");
    }
    return { extension, attribute: valuePath.attrPath, filter: valuePath.valFilter, ...(after ? { sub } : {}) };
  }
  const [attribute = "", sub, ...more] = rest.split(".");
  if (!NAME.test(attribute) || (sub !== undefined && !NAME.test(sub)) || more.length) {
    scimFail(400, `The path ${path} is not supported`, "invalidPath");
  }
  return { extension, attribute, ...(sub !== undefined ? { sub } : {}) };
}
