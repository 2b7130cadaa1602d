import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every category and action that the code can write to the audit log has a label in every
 * language, so the admin's audit log never shows a machine key. The writes are found in the
 * source: `audit({ category, action })` and the helpers that pass an action on
 * (auditAdmin, auditOrganization, assertPassword, auditKey); an action held in a variable is followed
 * to the literals assigned to it in the same file. The same reading checks that every event
 * of the categories an organization's own log shows names its organization.
 */
const LANGUAGES = ["en", "zh-CN", "ja", "fr"] as const;
const ROOT = join(__dirname, "..", "..", "..");
const SERVER = join(ROOT, "app", "server");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const literals = (text: string) => [...text.matchAll(/"([a-z0-9-]+)"/g)].map((match) => match[1]!);

/** The string literals an expression can take: literals themselves, or a variable's assignments. */
function valuesOf(expression: string, source: string, where: string): string[] {
  const found = literals(expression);
  if (found.length) return found;
  const name = /^\s*([A-Za-z_$][\w$]*)\s*$/.exec(expression)?.[1];
  if (!name) throw new Error(`${where}: cannot read the audit action ${expression.trim()}`);
  const assigned = [...source.matchAll(new RegExp(`(?:const|let)\\s+${name}\\s*=([^;]+);`, "g"))].flatMap((match) =>
    literals(match[1]!),
  );
  // A parameter passed on (the helpers' own `action`) is read at their callers instead.
  return assigned;
}

/** The first `count` arguments of the call starting at `open` (the index of its "("), as text. */
function argumentsAt(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  let quote: string | null = null;
  for (let i = open; i < source.length; i++) {
    const char = source[i]!;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = null;
      continue;
    }
    if (char === '"' || char === "'" || char === "`") quote = char;
    else if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) {
      depth--;
      if (depth === 0) {
        args.push(source.slice(start, i));
        return args;
      }
    } else if (char === "," && depth === 1) {
      args.push(source.slice(start, i));
      start = i + 1;
    }
  }
  return args;
}

/** An object literal's text without what is nested in it: its own properties only. */
function outermost(text: string): string {
  let depth = 0;
  let kept = "";
  for (const char of text) {
    if ("([{".includes(char)) depth++;
    if (depth <= 1) kept += char;
    if (")]}".includes(char)) depth--;
  }
  return kept;
}

/** Where an action is the n-th argument of a helper rather than a property of audit(). */
const HELPERS: Record<string, number> = { auditAdmin: 1, auditOrganization: 3, assertPassword: 3, auditKey: 3 };

export function writtenAuditEvents() {
  const categories = new Set<string>();
  const actions = new Map<string, string>(); // action -> first place it is written
  /** Each audit({ … }) call: where, its categories, and whether it names an organization. */
  const writes: { where: string; categories: string[]; namesOrganization: boolean }[] = [];
  for (const file of sourceFiles(SERVER)) {
    const source = readFileSync(file, "utf8");
    const name = relative(ROOT, file);
    for (const match of source.matchAll(/\baudit\(\{/g)) {
      const [event = ""] = argumentsAt(source, match.index + "audit".length);
      const category = /\bcategory:\s*([^,\n}]+)/.exec(event)?.[1];
      const action = /\baction(?::\s*([^,\n}]+))?\s*[,\n}]/.exec(event);
      if (!category || !action) throw new Error(`${name}: an audit() without a category or action`);
      const line = source.slice(0, match.index).split("\n").length;
      // The property itself (`organizationId:` or the shorthand), not a key inside `details`.
      const topLevel = outermost(event);
      writes.push({
        where: `${name}:${line}`,
        categories: valuesOf(category, source, name),
        namesOrganization: /[{,]\s*organizationId\s*[:,}]/.test(topLevel),
      });
      for (const value of valuesOf(category, source, name)) categories.add(value);
      for (const value of valuesOf(action[1] ?? "action", source, name))
        if (!actions.has(value)) actions.set(value, name);
    }
    for (const [helper, position] of Object.entries(HELPERS)) {
      for (const match of source.matchAll(new RegExp(`\\b${helper}\\(`, "g"))) {
        // The helper's own definition names its parameters; its calls pass the actions.
        if (/function\s+$/.test(source.slice(Math.max(0, match.index - 9), match.index))) continue;
        const argument = argumentsAt(source, match.index + helper.length)[position];
        if (argument === undefined) continue;
        for (const value of valuesOf(argument, source, name)) if (!actions.has(value)) actions.set(value, name);
      }
    }
  }
  return { categories, actions, writes };
}

function labels(language: string) {
  const reports = JSON.parse(readFileSync(join(ROOT, "locales", language, "reports.json"), "utf8"));
  return reports.auditLog as { categories: Record<string, string>; actions: Record<string, string> };
}

/**
 * The categories whose events can concern one organization. Each audit() of them says which
 * (or null, e.g. a user's own subscription): its organization's audit log reads that column
 * alone, so an event written without it would be missing there. auditOrganization takes the
 * organization as a required argument.
 */
const ORGANIZATION_CATEGORIES = ["organization", "sso", "scim", "payment", "api-key"];

describe("organization events", () => {
  const { writes } = writtenAuditEvents();

  it("are found", () => {
    for (const category of ["sso", "scim", "payment"]) {
      expect(writes.some((write) => write.categories.includes(category))).toBe(true);
    }
  });

  it("each name their organization", () => {
    const unnamed = writes.filter(
      (write) =>
        write.categories.some((category) => ORGANIZATION_CATEGORIES.includes(category)) && !write.namesOrganization,
    );
    expect(unnamed.map((write) => write.where)).toEqual([]);
  });
});

describe("audit log labels", () => {
  const { categories, actions } = writtenAuditEvents();

  it("finds the writes, including actions passed through helpers and variables", () => {
    for (const category of ["auth", "email", "organization", "payment", "admin", "security"]) {
      expect(categories).toContain(category);
    }
    for (const action of [
      "sign-in",
      "ban-user",
      "two-factor-disable",
      "resend-invitation",
      "invite-member",
      "restore-subscription",
      "cancel-subscription",
      "start-data-operation",
      "add-team-member",
    ]) {
      expect([...actions.keys()]).toContain(action);
    }
  });

  it.each(LANGUAGES)("names every written category and action in %s", (language) => {
    const { categories: categoryLabels, actions: actionLabels } = labels(language);
    const unnamedCategories = [...categories].filter((category) => !categoryLabels?.[category]?.trim());
    const unnamedActions = [...actions].filter(([action]) => !actionLabels?.[action]?.trim());
    expect(unnamedCategories).toEqual([]);
    expect(unnamedActions.map(([action, file]) => `${action} (${file})`)).toEqual([]);
  });

  it.each(LANGUAGES)("has no %s label for an action nothing writes (a leftover)", (language) => {
    expect(Object.keys(labels(language).actions).filter((action) => !actions.has(action))).toEqual([]);
  });
});
