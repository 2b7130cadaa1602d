/**
 * SCIM 2.0 on the wire (RFC 7643 and 7644), in the shapes @better-auth/scim answers: the media
 * type, the schema URNs, the error document, list responses, and the discovery documents a
 * directory reads before provisioning (what is supported, which attributes a User and a Group
 * have). Everything here is protocol; what a User or Group means for the product is in
 * users.server.ts and groups.server.ts.
 */
import type { z } from "zod";
import { FORBIDDEN_CHARACTERS } from "~/lib/text";
import { loadEnv } from "~/server/env.server";

export const SCIM_MEDIA_TYPE = "application/scim+json";

export const SCHEMAS = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  enterpriseUser: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  listResponse: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patchOp: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
  serviceProviderConfig: "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig",
  schema: "urn:ietf:params:scim:schemas:core:2.0:Schema",
  resourceType: "urn:ietf:params:scim:schemas:core:2.0:ResourceType",
} as const;

/** The most resources one list answers (ServiceProviderConfig's filter.maxResults). */
export const MAX_RESULTS = 100;

/** RFC 7644 section 3.12: what kind of 400 (or 409) an error is. */
export type ScimType =
  | "invalidValue"
  | "invalidSyntax"
  | "invalidFilter"
  | "invalidPath"
  | "noTarget"
  | "mutability"
  | "uniqueness"
  | "tooMany";

/** A refusal in the SCIM error shape; the endpoints turn it into its response. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = "ScimError";
  }
}

export function scimFail(status: number, detail: string, scimType?: ScimType): never {
  throw new ScimError(status, detail, scimType);
}

/** A SCIM document as the response, in the SCIM media type. */
export function scimResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body === null ? null : JSON.stringify(body), {
    status,
    headers: { ...headers, "Content-Type": SCIM_MEDIA_TYPE },
  });
}

export function scimErrorResponse(error: ScimError): Response {
  return scimResponse(
    {
      schemas: [SCHEMAS.error],
      status: String(error.status),
      ...(error.scimType ? { scimType: error.scimType } : {}),
      detail: error.detail,
    },
    error.status,
    error.headers,
  );
}

// ---- request bodies ----

const JSON_TYPES = /^application\/(scim\+)?json\s*(;|$)/i;
/** No string a directory sends is longer (a manager's $ref is the longest, well under this). */
const MAX_STRING_LENGTH = 4096;

/** Deeper than any SCIM document goes (an extension's manager's value is three levels down). */
const MAX_DEPTH = 8;

function checkedText(text: string, where: string): string {
  if (text.length > MAX_STRING_LENGTH) scimFail(400, `${where} is too long`, "invalidValue");
  if (FORBIDDEN_CHARACTERS.test(text)) scimFail(400, `${where} contains a control character`, "invalidValue");
  return text;
}

/**
 * A JSON value without its nulls (SCIM's "unassigned"), refusing control characters, overlong
 * strings, nesting deeper than any SCIM document, and `__proto__` keys (which would reach an
 * object's prototype when the value is patched in).
 */
function cleaned(value: unknown, path: string, depth = 0): unknown {
  const where = path.slice(0, 200) || "The body";
  if (typeof value === "string") return checkedText(value, where);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) scimFail(400, `${where} is nested too deeply`, "invalidValue");
  if (Array.isArray(value)) {
    return value.filter((item) => item !== null).map((item, i) => cleaned(item, `${path}[${i}]`, depth + 1));
  }
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== null)
      .map(([key, item]) => {
        checkedText(key, path ? `A key of ${where}` : "A key");
        if (key === "__proto__") scimFail(400, `${where} has a key named __proto__`, "invalidValue");
        return [key, cleaned(item, path ? `${path}.${key}` : key, depth + 1)];
      }),
  );
}

/**
 * The JSON object of a SCIM request body (application/scim+json or application/json): 415
 * for another type, 400 invalidSyntax for malformed JSON or a body that is not an object.
 */
export function scimBody(request: Request, text: string): Record<string, unknown> {
  if (!JSON_TYPES.test(request.headers.get("Content-Type") ?? "")) {
    scimFail(415, "SCIM requests must use application/scim+json or application/json");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    scimFail(400, "The request body is not valid JSON", "invalidSyntax");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    scimFail(400, "The request body must be a JSON object", "invalidSyntax");
  }
  return cleaned(body, "") as Record<string, unknown>;
}

/** `input` validated by `schema`, or a 400 invalidValue naming each problem. */
export function scimParse<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const detail = result.error.issues
    .map((issue) => (issue.path.length ? `[${issue.path.map(String).join(".")}] ${issue.message}` : issue.message))
    .join("; ");
  return scimFail(400, detail, "invalidValue");
}

/** The SCIM base URL a directory is given: `{BASE_URL}/api/auth/scim/v2`. */
export const scimBaseUrl = () => new URL("/api/auth/scim/v2", loadEnv().BASE_URL).href;

/** The absolute address of a path under the SCIM base URL (meta.location). */
export const scimLocation = (path: string) => `${scimBaseUrl()}${path}`;

export function listResponse<T>(resources: T[], totalResults = resources.length, startIndex = 1) {
  return {
    schemas: [SCHEMAS.listResponse],
    totalResults,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}

// ---- lists and attribute selection ----

/** A request's query string as the dispatcher hands it over (a repeated key is an array). */
export type ScimQuery = Record<string, string | string[] | undefined>;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

function integer(query: ScimQuery, name: string): number | undefined {
  const value = first(query[name]);
  if (value === undefined || value.trim() === "") return undefined;
  if (!/^[+-]?\d{1,15}$/.test(value.trim())) scimFail(400, `${name} must be an integer`, "invalidValue");
  return Number(value);
}

/** `startIndex` (1-based; less than 1 is 1) and `count` (0 to MAX_RESULTS, MAX_RESULTS when absent), as RFC 7644 reads them. */
export function pageOf(query: ScimQuery): { startIndex: number; count: number } {
  const startIndex = Math.max(1, integer(query, "startIndex") ?? 1);
  const count = Math.min(MAX_RESULTS, Math.max(0, integer(query, "count") ?? MAX_RESULTS));
  return { startIndex, count };
}

/** Where a page starts and how long it is, oldest first (then by id, so pages never overlap), as Prisma reads it. */
type Page = { orderBy: { createdAt?: "asc"; id?: "asc" }[]; skip: number; take: number };

/**
 * A list as RFC 7644 answers it: the total under the request's filter, and the resources of
 * the page `startIndex` and `count` ask for, each cut to the attributes asked for.
 */
export async function pagedList<Row, T extends Record<string, unknown>>(
  query: ScimQuery,
  schema: string,
  total: () => Promise<number>,
  rows: (page: Page) => Promise<Row[]>,
  resource: (row: Row) => T,
) {
  const { startIndex, count } = pageOf(query);
  const page: Page = { orderBy: [{ createdAt: "asc" }, { id: "asc" }], skip: startIndex - 1, take: count };
  const [totalResults, found] = await Promise.all([total(), count === 0 ? [] : rows(page)]);
  return listResponse(
    found.map((row) => projected(resource(row), query, schema)),
    totalResults,
    startIndex,
  );
}

/** The top-level attribute an `attributes` entry names (lower-case): an extension's URN, else the name before a dot. */
function topLevel(name: string, schema: string): string {
  const lower = name.trim().toLowerCase();
  const bare = lower.startsWith(`${schema.toLowerCase()}:`) ? lower.slice(schema.length + 1) : lower;
  const extension = SCHEMAS.enterpriseUser.toLowerCase();
  return bare.startsWith(extension) ? extension : bare.split(".")[0]!;
}

/** Always returned, whatever `attributes` and `excludedAttributes` say. */
const ALWAYS = new Set(["id", "schemas", "meta"]);

/** `resource` with only the top-level attributes `attributes` names, and none that `excludedAttributes` names. */
export function projected<T extends Record<string, unknown>>(
  resource: T,
  query: ScimQuery,
  schema: string,
): Partial<T> {
  const names = (key: string) => {
    const value = query[key];
    if (value === undefined) return null;
    return new Set(
      (Array.isArray(value) ? value.join(",") : value)
        .split(",")
        .filter((name) => name.trim())
        .map((name) => topLevel(name, schema)),
    );
  };
  const only = names("attributes");
  const except = names("excludedAttributes");
  return Object.fromEntries(
    Object.entries(resource).filter(
      ([key]) => ALWAYS.has(key) || ((!only || only.has(key.toLowerCase())) && !except?.has(key.toLowerCase())),
    ),
  ) as Partial<T>;
}

// ---- discovery ----

type Attribute = Record<string, unknown>;

function attribute(name: string, description: string, extra: Attribute = {}): Attribute {
  return {
    name,
    type: "string",
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: "readWrite",
    returned: "default",
    uniqueness: "none",
    ...extra,
  };
}

const primary = attribute("primary", "Whether this is the primary value.", { type: "boolean" });
const type = attribute("type", "A label indicating the value's function, e.g. work.");

function multiValued(name: string, description: string, subAttributes: Attribute[]): Attribute {
  return attribute(name, description, { type: "complex", multiValued: true, subAttributes });
}

const userSchema = {
  id: SCHEMAS.user,
  name: "User",
  description: "User Account",
  attributes: [
    attribute("userName", "Unique identifier for the User within its organization.", {
      required: true,
      uniqueness: "server",
    }),
    attribute("name", "The components of the User's real name.", {
      type: "complex",
      subAttributes: [
        attribute("formatted", "The full name."),
        attribute("familyName", "The family name."),
        attribute("givenName", "The given name."),
        attribute("middleName", "The middle name."),
        attribute("honorificPrefix", "The honorific prefix."),
        attribute("honorificSuffix", "The honorific suffix."),
      ],
    }),
    attribute("displayName", "The name of the User, suitable for display."),
    attribute("nickName", "The casual name of the User."),
    attribute("title", "The User's title."),
    attribute("userType", "The User's relationship to the organization."),
    attribute("preferredLanguage", "The User's preferred language."),
    attribute("locale", "The User's default location."),
    attribute("timezone", "The User's time zone."),
    attribute("active", "Whether the User may use the product (a member of the organization).", {
      type: "boolean",
    }),
    multiValued("emails", "Email addresses; the primary one is the User's email.", [
      attribute("value", "An email address.", { required: true }),
      type,
      primary,
    ]),
    multiValued("addresses", "Postal addresses.", [
      attribute("formatted", "The full address."),
      attribute("streetAddress", "The street address."),
      attribute("locality", "The city or locality."),
      attribute("region", "The state or region."),
      attribute("postalCode", "The postal code."),
      attribute("country", "The country."),
      type,
      primary,
    ]),
    multiValued("phoneNumbers", "Phone numbers.", [
      attribute("value", "A phone number.", { required: true }),
      type,
      primary,
    ]),
    attribute("groups", "The Groups the User is in.", {
      type: "complex",
      multiValued: true,
      mutability: "readOnly",
      subAttributes: [
        attribute("value", "The Group's id.", { mutability: "readOnly" }),
        attribute("display", "The Group's name.", { mutability: "readOnly" }),
      ],
    }),
  ],
};

const enterpriseUserSchema = {
  id: SCHEMAS.enterpriseUser,
  name: "EnterpriseUser",
  description: "Enterprise User",
  attributes: [
    attribute("employeeNumber", "A number assigned to the User."),
    attribute("costCenter", "The User's cost center."),
    attribute("organization", "The User's organization."),
    attribute("division", "The User's division."),
    attribute("department", "The User's department."),
    attribute("manager", "The User's manager.", {
      type: "complex",
      subAttributes: [
        attribute("value", "The manager's id."),
        attribute("displayName", "The manager's name.", { mutability: "readOnly" }),
      ],
    }),
  ],
};

const groupSchema = {
  id: SCHEMAS.group,
  name: "Group",
  description: "Group",
  attributes: [
    attribute("displayName", "A human-readable name for the Group; members of the Group named Admins are admins.", {
      required: true,
      uniqueness: "server",
    }),
    attribute("members", "The Users in the Group.", {
      type: "complex",
      multiValued: true,
      subAttributes: [
        attribute("value", "The User's id.", { required: true, mutability: "immutable" }),
        attribute("display", "The User's name.", { mutability: "readOnly" }),
        attribute("type", "The member's resource type.", { canonicalValues: ["User"], mutability: "immutable" }),
      ],
    }),
  ],
};

function withMeta<T extends { id: string }>(document: T, resourceType: string, path: string) {
  return { ...document, meta: { resourceType, location: scimLocation(path) } };
}

/** The schemas a directory may read (GET /Schemas), in the order listed. */
export const schemaDocuments = () =>
  [userSchema, enterpriseUserSchema, groupSchema].map((schema) => ({
    schemas: [SCHEMAS.schema],
    ...withMeta(schema, "Schema", `/Schemas/${schema.id}`),
  }));

export const resourceTypeDocuments = () => [
  {
    schemas: [SCHEMAS.resourceType],
    ...withMeta({ id: "User" }, "ResourceType", "/ResourceTypes/User"),
    name: "User",
    endpoint: "/Users",
    description: "User Account",
    schema: SCHEMAS.user,
    schemaExtensions: [{ schema: SCHEMAS.enterpriseUser, required: false }],
  },
  {
    schemas: [SCHEMAS.resourceType],
    ...withMeta({ id: "Group" }, "ResourceType", "/ResourceTypes/Group"),
    name: "Group",
    endpoint: "/Groups",
    description: "Group",
    schema: SCHEMAS.group,
  },
];

export const serviceProviderConfig = () => ({
  schemas: [SCHEMAS.serviceProviderConfig],
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      name: "OAuth Bearer Token",
      description: "Authentication with a SCIM token of the connection in the Authorization header.",
      specUri: "https://www.rfc-editor.org/info/rfc6750",
      type: "oauthbearertoken",
      primary: true,
    },
  ],
  meta: { resourceType: "ServiceProviderConfig", location: scimLocation("/ServiceProviderConfig") },
});
