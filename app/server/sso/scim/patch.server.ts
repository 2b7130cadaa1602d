/**
 * SCIM PATCH (RFC 7644 section 3.5.2) on a resource's document: each operation (add, replace,
 * remove; any case, as Entra ID sends "Replace") is applied to the resource as the directory
 * would read it, and the result is then validated like a PUT body, so a PATCH can never store
 * what a PUT could not. Covers what directories send: Okta's pathless
 * `{"op":"replace","value":{"active":false}}`, Entra ID's `{"op":"Replace","path":"active",
 * "value":"False"}` and single values wrapped in an array, `emails[type eq "work"].value`
 * that adds the work address when there is none, `members[value eq "…"]` and removals that
 * list the members in `value`.
 */
import { filter as matcher, type Filter } from "scim2-parse-filter";
import { z } from "zod";
import { patchPath, type PatchPath } from "./filter.server";
import { SCHEMAS, scimFail } from "./protocol.server";

/** More operations than this in one request are refused (Entra ID sends a few, Okta one). */
const MAX_OPERATIONS = 1000;

export const patchRequest = z.object({
  schemas: z.array(z.string()).refine((schemas) => schemas.includes(SCHEMAS.patchOp), {
    message: `schemas must contain ${SCHEMAS.patchOp}`,
  }),
  Operations: z
    .array(
      z.object({
        op: z
          .string()
          .transform((op) => op.toLowerCase())
          .pipe(z.enum(["add", "replace", "remove"])),
        path: z.string().optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(MAX_OPERATIONS),
});
export type PatchOperation = z.infer<typeof patchRequest>["Operations"][number];

type Doc = Record<string, unknown>;

/** What a resource type's documents look like to PATCH. */
export interface DocumentShape {
  /** The core schema's URN (a path may start with it). */
  schema: string;
  extensions: readonly string[];
  /** Attribute names as the resource spells them; a path may use any case. */
  attributes: readonly string[];
  multiValued: readonly string[];
  /** Attributes a directory cannot set (a pathless value that names them is not refused). */
  readOnly: readonly string[];
}

const isRecord = (value: unknown): value is Doc => typeof value === "object" && value !== null && !Array.isArray(value);

const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The key of `object` named `name` in any case, else its spelling in `known`, else `name`. */
function keyOf(object: Doc, name: string, known: readonly string[] = []): string {
  return Object.keys(object).find((key) => sameName(key, name)) ?? known.find((key) => sameName(key, name)) ?? name;
}

/** The complex value under `name` of `object`, made when `create` and absent. */
function complex(object: Doc, name: string, create: boolean, known: readonly string[] = []): Doc | null {
  const key = keyOf(object, name, known);
  const value = object[key];
  if (isRecord(value)) return value;
  if (!create) return null;
  return (object[key] = {});
}

/** The value a filter such as `type eq "work"` names, to add when no value matches it; null if it names none. */
function valueNamedBy(filter: Filter): Doc | null {
  if (filter.op === "eq" && !filter.attrPath.includes(".")) return { [filter.attrPath]: filter.compValue };
  if (filter.op === "and") {
    const parts = filter.filters.map(valueNamedBy);
    return parts.every(Boolean) ? Object.assign({}, ...parts) : null;
  }
  return null;
}

function applyAt(document: Doc, target: PatchPath, op: PatchOperation["op"], value: unknown, shape: DocumentShape) {
  const container = target.extension
    ? complex(document, target.extension, op !== "remove", shape.extensions)
    : document;
  if (!container) return; // nothing to remove
  const key = keyOf(container, target.attribute, target.extension ? [] : [...shape.attributes, ...shape.extensions]);
  if (!target.extension && shape.readOnly.some((name) => sameName(name, key))) {
    scimFail(400, `${key} cannot be changed`, "mutability");
  }
  const multiValued = shape.multiValued.some((name) => sameName(name, key)) || Array.isArray(container[key]);
  // Entra ID wraps a single value in an array.
  const single = !multiValued && Array.isArray(value) && value.length === 1 ? (value[0] as unknown) : value;

  if (target.filter) {
    if (!multiValued)
      scimFail(400, `${key} has a single value: a filter cannot select among its values`, "invalidPath");
    const values = (Array.isArray(container[key]) ? container[key] : []) as unknown[];
    const matches = matcher(target.filter);
    const selected = values.filter((item) => isRecord(item) && matches(item)) as Doc[];
    const sub = target.sub;
    if (op === "remove") {
      if (sub) for (const item of selected) delete item[keyOf(item, sub)];
      container[key] = sub ? values : values.filter((item) => !selected.includes(item as Doc));
      return;
    }
    const part = sub ? (Array.isArray(value) && value.length === 1 ? (value[0] as unknown) : value) : value;
    if (!sub && !isRecord(part)) scimFail(400, `The value for ${key}[…] must be an object`, "invalidValue");
    if (selected.length === 0) {
      const named = valueNamedBy(target.filter);
      if (!named) scimFail(400, `No value of ${key} matches the path's filter`, "noTarget");
      container[key] = [...values, { ...named, ...(sub ? { [sub]: part } : (part as Doc)) }];
      return;
    }
    for (const item of selected) {
      if (sub) item[keyOf(item, sub)] = part;
      else Object.assign(item, part);
    }
    return;
  }

  if (target.sub) {
    if (multiValued) scimFail(400, `${key} has several values: name one with a filter`, "invalidPath");
    const parent = complex(container, key, op !== "remove");
    if (!parent) return;
    if (op === "remove") delete parent[keyOf(parent, target.sub)];
    else parent[keyOf(parent, target.sub)] = single;
    return;
  }

  if (op === "remove") {
    const current = container[key];
    if (multiValued && Array.isArray(value) && Array.isArray(current)) {
      // Entra ID removes group members by listing them in the value.
      const gone = new Set(value.filter(isRecord).map((item) => item.value));
      container[key] = current.filter((item) => !(isRecord(item) && gone.has(item.value)));
    } else {
      delete container[key];
    }
    return;
  }
  if (multiValued && op === "add") {
    const current = (Array.isArray(container[key]) ? container[key] : []) as unknown[];
    container[key] = [...current, ...(Array.isArray(value) ? value : [value])];
    return;
  }
  if (multiValued) {
    container[key] = Array.isArray(value) ? value : [value];
    return;
  }
  // A complex attribute takes the sub-attributes given and keeps the others (both ops).
  const current = container[key];
  container[key] = isRecord(current) && isRecord(single) ? { ...current, ...single } : single;
}

function applyOne(document: Doc, { op, path, value }: PatchOperation, shape: DocumentShape) {
  if (path !== undefined && path.trim() !== "") {
    applyAt(document, patchPath(path, shape.schema, shape.extensions), op, value, shape);
    return;
  }
  if (op === "remove") scimFail(400, "A remove operation needs a path", "noTarget");
  if (!isRecord(value)) scimFail(400, `An ${op} operation without a path needs an object value`, "invalidValue");
  for (const [name, part] of Object.entries(value)) {
    // Okta and Entra ID repeat the id (and sometimes schemas) in a pathless value.
    if (shape.readOnly.some((readOnly) => sameName(readOnly, name)) || sameName(name, "schemas")) continue;
    // "name.givenName" or an extension attribute by its URN: a path of its own.
    if (name.includes(".") || name.includes(":")) applyOne(document, { op, path: name, value: part }, shape);
    else applyAt(document, { attribute: name }, op, part, shape);
  }
}

/** `document` with `operations` applied in order (the input is not changed). */
export function applyPatch(document: Doc, operations: PatchOperation[], shape: DocumentShape): Doc {
  const result = structuredClone(document);
  for (const operation of operations) applyOne(result, operation, shape);
  return result;
}
