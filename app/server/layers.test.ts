/**
 * The lint rules that keep the server's structure (eslint.config.js) are live: a domain
 * importing one above it, or the dispatcher, fails lint, and so does a runtime import cycle;
 * type-only imports may go either way.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ESLint } from "eslint";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const eslint = new ESLint({ cwd: ROOT });

async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, file) });
  return result!.messages.map((message) => message.ruleId ?? message.message);
}

describe("layers", () => {
  it.each([
    ["app/server/auth/probe.server.ts", 'import { x } from "~/server/organization/organizations.server";'],
    ["app/server/auth/social/probe.server.ts", 'import { x } from "../../billing/billing.server";'],
    ["app/server/organization/probe.server.ts", 'import { x } from "~/server/billing/billing.server";'],
    ["app/server/organization/api/probe.server.ts", 'import { x } from "~/server/admin/users.server";'],
    ["app/server/billing/probe.server.ts", 'import { x } from "~/server/admin/users.server";'],
    ["app/server/organization/probe.server.ts", 'import { x } from "~/server/webhooks/delivery.server";'],
    ["app/server/billing/probe.server.ts", 'import { x } from "~/server/webhooks/endpoints.server";'],
    ["app/server/webhooks/probe.server.ts", 'import { x } from "~/server/admin/users.server";'],
    ["app/server/admin/probe.server.ts", 'import { x } from "~/server/api.server";'],
    ["app/server/auth/api/probe.server.ts", 'import { x } from "../../api.server";'],
  ])("%s may not %s", async (file, line) => {
    expect(await ruleIds(file, `${line}\nexport const y = x;\n`)).toEqual(["@typescript-eslint/no-restricted-imports"]);
  });

  it.each([
    ["app/server/billing/probe.server.ts", 'import { x } from "~/server/organization/permissions.server";'],
    ["app/server/admin/probe.server.ts", 'import { x } from "~/server/billing/billing.server";'],
    ["app/server/webhooks/probe.server.ts", 'import { x } from "~/server/organization/permissions.server";'],
    ["app/server/admin/probe.server.ts", 'import { x } from "~/server/webhooks/endpoints.server";'],
    ["app/server/auth/probe.server.ts", 'import type { x } from "~/server/billing/billing.server";'],
    ["app/server/api.server.ts", 'import { x } from "./admin/users.server";'],
  ])("%s may %s", async (file, line) => {
    expect(await ruleIds(file, `${line}\nexport const y = x;\n`)).toEqual([]);
  });
});

describe("import cycles", () => {
  const dir = join(ROOT, `app/server/cycle-probe-${process.pid}`);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails on a runtime cycle, through the ~ alias too, and allows a type-only one", async () => {
    mkdirSync(dir, { recursive: true });
    const name = dir.split("/").pop();
    writeFileSync(join(dir, "a.server.ts"), 'import { b } from "./b.server";\nexport const a = () => b;\n');
    writeFileSync(
      join(dir, "b.server.ts"),
      `import { a } from "~/server/${name}/a.server";\nexport const b = () => a;\n`,
    );
    writeFileSync(join(dir, "c.server.ts"), 'import type { D } from "./d.server";\nexport type C = D | 1;\n');
    writeFileSync(join(dir, "d.server.ts"), 'import type { C } from "./c.server";\nexport type D = C | 2;\n');
    const results = await eslint.lintFiles([dir]);
    const byFile = Object.fromEntries(
      results.map((result) => [result.filePath.split("/").pop(), result.messages.map((m) => m.ruleId)]),
    );
    expect(byFile).toEqual({
      "a.server.ts": ["import-x/no-cycle"],
      "b.server.ts": ["import-x/no-cycle"],
      "c.server.ts": [],
      "d.server.ts": [],
    });
  });
});
