/**
 * Checks an answer against @polar-sh/sdk's own types. Polar's better-auth plugin answers the
 * SDK's objects as JSON (camelCase, ISO dates); the SDK's inbound schemas read Polar's wire
 * form (snake_case). So the answer is turned into the wire form, parsed by the schema (a
 * missing or mistyped field throws), and the parsed object, as JSON again, must be the answer
 * itself (a field the SDK does not know, or a value it reads differently, shows up there).
 */
import { expect } from "vitest";

/** Keys whose values are free-form maps, left as they are (metadata keys are the app's own). */
const OPAQUE = new Set(["metadata", "customFieldData", "custom_field_data"]);

const snake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The SDK's object as JSON, back in Polar's wire form. */
export function polarWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(polarWire);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [snake(key), OPAQUE.has(key) ? item : polarWire(item)]),
  );
}

interface InboundSchema {
  parse(value: unknown): unknown;
}

/** Parses `answer` with the SDK's inbound schema and expects nothing lost, added or changed. */
export function expectPolarShape(schema: InboundSchema, answer: unknown): void {
  const parsed = schema.parse(polarWire(answer));
  expect(JSON.parse(JSON.stringify(parsed))).toEqual(answer);
}
